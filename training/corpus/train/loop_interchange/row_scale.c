#include <stddef.h>

/* Multiply every row i of a row-major height x width array by r[i]; the inner loop strides across the layout.
 * perfalign: size(a)=height*width, size(r)=height, noalias
 */
void row_scale(long *a, const long *r, long height, long width) {
    for (long j = 0; j < width; j++) {
        for (long i = 0; i < height; i++)
            a[i * width + j] *= r[i];
    }
}
