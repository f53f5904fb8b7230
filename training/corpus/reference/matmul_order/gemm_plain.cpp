#include <cstddef>

void gemm_plain(const float *a, const float *b, float *c, int m, int p, int q) {
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < q; j++)
            c[i * q + j] = 0.0f;
        for (int k = 0; k < p; k++) {
            const float aik = a[i * p + k];
            for (int j = 0; j < q; j++)
                c[i * q + j] += aik * b[k * q + j];
        }
    }
}
