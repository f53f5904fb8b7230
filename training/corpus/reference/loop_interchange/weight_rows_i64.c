#include <stddef.h>

void weight_rows_i64(long *a, const long *r, size_t nr, size_t nc) {
    for (size_t i = 0; i < nr; i++) {
        for (size_t j = 0; j < nc; j++)
            a[i * nc + j] *= r[i];
    }
}
