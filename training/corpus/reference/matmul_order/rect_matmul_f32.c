#include <stddef.h>

void rect_matmul_f32(const float *a, const float *b, float *c, long m, long p, long q) {
    for (long i = 0; i < m; i++) {
        for (long j = 0; j < q; j++)
            c[i * q + j] = 0.0f;
        for (long k = 0; k < p; k++) {
            const float aik = a[i * p + k];
            for (long j = 0; j < q; j++)
                c[i * q + j] += aik * b[k * q + j];
        }
    }
}
