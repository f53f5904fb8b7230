#include <stddef.h>

/* Sum of each row of a row-major height x width array; the inner loop strides across the layout.
 * perfalign: size(a)=height*width, size(out)=height, noalias
 */
void row_sums(const int *a, long *out, size_t height, size_t width) {
    for (size_t i = 0; i < height; i++)
        out[i] = 0;
    for (size_t j = 0; j < width; j++) {
        for (size_t i = 0; i < height; i++)
            out[i] += a[i * width + j];
    }
}
