#include <stddef.h>

void rect_matmul_i32(const int *a, const int *b, int *c, int m, int p, int q) {
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < q; j++)
            c[i * q + j] = 0;
        for (int k = 0; k < p; k++) {
            const int aik = a[i * p + k];
            for (int j = 0; j < q; j++)
                c[i * q + j] += aik * b[k * q + j];
        }
    }
}
