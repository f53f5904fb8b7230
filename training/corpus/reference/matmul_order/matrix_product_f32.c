#include <stddef.h>

void matrix_product_f32(const float *a, const float *b, float *c, size_t m, size_t p, size_t q) {
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < q; j++)
            c[i * q + j] = 0.0f;
        for (size_t k = 0; k < p; k++) {
            const float aik = a[i * p + k];
            for (size_t j = 0; j < q; j++)
                c[i * q + j] += aik * b[k * q + j];
        }
    }
}
