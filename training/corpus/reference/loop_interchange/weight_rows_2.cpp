#include <cstddef>

void weight_rows_2(float *a, const float *r, std::size_t h, std::size_t w) {
    for (std::size_t i = 0; i < h; i++) {
        for (std::size_t j = 0; j < w; j++)
            a[i * w + j] *= r[i];
    }
}
