#include <cstddef>

// Multiply every column j of a row-major nr x nc array by s[j]; the inner loop strides across the layout.
// perfalign: size(a)=nr*nc, size(s)=nc, noalias
void scale_columns_i64(long *a, const long *s, int nr, int nc) {
    for (int j = 0; j < nc; j++) {
        for (int i = 0; i < nr; i++)
            a[i * nc + j] *= s[j];
    }
}
