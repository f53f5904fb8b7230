#include <cstddef>

void combine_grids_f32(const float *a, const float *b, float *out, float beta, std::size_t m, std::size_t n) {
    for (std::size_t j = 0; j < n; j++) {
        for (std::size_t i = 0; i < m; i++)
            out[j * m + i] = 1.5f * a[j * m + i] + beta * b[j * m + i];
    }
}
