#include <stddef.h>

/* C = A B for an m x p and a p x q matrix, i-j-k order: the inner loop walks down a column.
 * perfalign: size(a)=m*p, size(b)=p*q, size(c)=m*q, noalias
 */
void matrix_product_f32(const float *a, const float *b, float *c, size_t m, size_t p, size_t q) {
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < q; j++) {
            float s = 0.0f;
            for (size_t k = 0; k < p; k++)
                s += a[i * p + k] * b[k * q + j];
            c[i * q + j] = s;
        }
}
