#include <stddef.h>

/* C = A B for an m x p and a p x q matrix, i-j-k order: the inner loop walks down a column.
 * perfalign: size(a)=m*p, size(b)=p*q, size(c)=m*q, noalias
 */
void rect_matmul_f32(const float *a, const float *b, float *c, long m, long p, long q) {
    for (long i = 0; i < m; i++)
        for (long j = 0; j < q; j++) {
            float s = 0.0f;
            for (long k = 0; k < p; k++)
                s += a[i * p + k] * b[k * q + j];
            c[i * q + j] = s;
        }
}
