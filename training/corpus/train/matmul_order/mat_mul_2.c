#include <stddef.h>

/* C = A B for n x n row-major matrices, i-j-k order: the inner loop walks down a column.
 * perfalign: size(a)=n*n, size(b)=n*n, size(c)=n*n, noalias
 */
void mat_mul_2(const float *a, const float *b, float *c, int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float s = 0.0f;
            for (int k = 0; k < n; k++)
                s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
}
