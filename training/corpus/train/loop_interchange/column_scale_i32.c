#include <stddef.h>

/* Multiply every column j of a column-major h x w array by s[j]; the inner loop strides across the layout.
 * perfalign: size(a)=h*w, size(s)=w, noalias
 */
void column_scale_i32(int *a, const int *s, size_t h, size_t w) {
    for (size_t i = 0; i < h; i++) {
        for (size_t j = 0; j < w; j++)
            a[j * h + i] *= s[j];
    }
}
