#include <cstddef>

void at_times_b(const int *a, const int *b, int *c, long m, long p, long q) {
    for (long i = 0; i < m; i++)
        for (long j = 0; j < q; j++)
            c[i * q + j] = 0;
    for (long k = 0; k < p; k++)
        for (long i = 0; i < m; i++) {
            const int aik = a[k * m + i];
            for (long j = 0; j < q; j++)
                c[i * q + j] += aik * b[k * q + j];
        }
}
