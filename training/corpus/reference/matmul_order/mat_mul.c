#include <stddef.h>

void mat_mul(const int *a, const int *b, int *c, size_t n) {
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++)
            c[i * n + j] = 0;
        for (size_t k = 0; k < n; k++) {
            const int aik = a[i * n + k];
            for (size_t j = 0; j < n; j++)
                c[i * n + j] += aik * b[k * n + j];
        }
    }
}
