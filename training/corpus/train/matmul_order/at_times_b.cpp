#include <cstddef>

// C = A^T B with A stored p x m, i-j-k order: the inner loop walks down a column.
// perfalign: size(a)=p*m, size(b)=p*q, size(c)=m*q, noalias
void at_times_b(const int *a, const int *b, int *c, long m, long p, long q) {
    for (long i = 0; i < m; i++)
        for (long j = 0; j < q; j++) {
            int s = 0;
            for (long k = 0; k < p; k++)
                s += a[k * m + i] * b[k * q + j];
            c[i * q + j] = s;
        }
}
