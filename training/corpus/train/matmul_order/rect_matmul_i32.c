#include <stddef.h>

/* C = A B for an m x p and a p x q matrix, i-j-k order: the inner loop walks down a column.
 * perfalign: size(a)=m*p, size(b)=p*q, size(c)=m*q, noalias
 */
void rect_matmul_i32(const int *a, const int *b, int *c, int m, int p, int q) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < q; j++) {
            int s = 0;
            for (int k = 0; k < p; k++)
                s += a[i * p + k] * b[k * q + j];
            c[i * q + j] = s;
        }
}
