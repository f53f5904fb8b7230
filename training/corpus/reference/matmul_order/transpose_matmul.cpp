#include <cstddef>

void transpose_matmul(const long *a, const long *b, long *c, std::size_t m, std::size_t p, std::size_t q) {
    for (std::size_t i = 0; i < m; i++)
        for (std::size_t j = 0; j < q; j++)
            c[i * q + j] = 0;
    for (std::size_t k = 0; k < p; k++)
        for (std::size_t i = 0; i < m; i++) {
            const long aik = a[k * m + i];
            for (std::size_t j = 0; j < q; j++)
                c[i * q + j] += aik * b[k * q + j];
        }
}
