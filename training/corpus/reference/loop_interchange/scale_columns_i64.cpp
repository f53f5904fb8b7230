#include <cstddef>

void scale_columns_i64(long *a, const long *s, int nr, int nc) {
    for (int i = 0; i < nr; i++) {
        for (int j = 0; j < nc; j++)
            a[i * nc + j] *= s[j];
    }
}
