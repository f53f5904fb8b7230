#include <cstddef>

void volume_axpy(const int *a, const int *b, int *out, std::size_t d0, std::size_t d1, std::size_t d2) {
    for (std::size_t i = 0; i < d0; i++)
        for (std::size_t j = 0; j < d1; j++)
            for (std::size_t k = 0; k < d2; k++)
                out[(i * d1 + j) * d2 + k] = a[(i * d1 + j) * d2 + k] - 3 * b[(i * d1 + j) * d2 + k];
}
