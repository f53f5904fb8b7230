#include <stddef.h>

/* C = A^T B with A stored p x m, i-j-k order: the inner loop walks down a column.
 * perfalign: size(a)=p*m, size(b)=p*q, size(c)=m*q, noalias
 */
void gram_product_2(const int *a, const int *b, int *c, size_t m, size_t p, size_t q) {
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < q; j++) {
            int s = 0;
            for (size_t k = 0; k < p; k++)
                s += a[k * m + i] * b[k * q + j];
            c[i * q + j] = s;
        }
}
