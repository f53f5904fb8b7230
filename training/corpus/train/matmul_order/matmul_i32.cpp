#include <cstddef>

// C = A B for n x n row-major matrices, i-j-k order: the inner loop walks down a column.
// perfalign: size(a)=n*n, size(b)=n*n, size(c)=n*n, noalias
void matmul_i32(const int *a, const int *b, int *c, long n) {
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            int s = 0;
            for (long k = 0; k < n; k++)
                s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
}
