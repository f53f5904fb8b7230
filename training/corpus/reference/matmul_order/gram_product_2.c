#include <stddef.h>

void gram_product_2(const int *a, const int *b, int *c, size_t m, size_t p, size_t q) {
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < q; j++)
            c[i * q + j] = 0;
    for (size_t k = 0; k < p; k++)
        for (size_t i = 0; i < m; i++) {
            const int aik = a[k * m + i];
            for (size_t j = 0; j < q; j++)
                c[i * q + j] += aik * b[k * q + j];
        }
}
