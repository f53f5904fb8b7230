#include <stddef.h>

/* Multiply every column j of a row-major h x w array by s[j]; the inner loop strides across the layout.
 * perfalign: size(a)=h*w, size(s)=w, noalias
 */
void column_scale(int *a, const int *s, long h, long w) {
    for (long j = 0; j < w; j++) {
        for (long i = 0; i < h; i++)
            a[i * w + j] *= s[j];
    }
}
