#include <cstddef>

void matrix_product_i64_2(const long *a, const long *b, long *c, int m, int p, int q) {
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < q; j++)
            c[i * q + j] = 0;
        for (int k = 0; k < p; k++) {
            const long aik = a[i * p + k];
            for (int j = 0; j < q; j++)
                c[i * q + j] += aik * b[k * q + j];
        }
    }
}
