#include <cstddef>

void matmul_i32(const int *a, const int *b, int *c, long n) {
    for (long i = 0; i < n; i++) {
        for (long j = 0; j < n; j++)
            c[i * n + j] = 0;
        for (long k = 0; k < n; k++) {
            const int aik = a[i * n + k];
            for (long j = 0; j < n; j++)
                c[i * n + j] += aik * b[k * n + j];
        }
    }
}
