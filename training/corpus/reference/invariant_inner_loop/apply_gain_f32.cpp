#include <cstddef>

void apply_gain_f32(const float *x, float *y, std::size_t n, const float *coef, std::size_t k) {
    float g = 0.0f;
    for (std::size_t j = 0; j < k; j++)
        g += coef[j];
    for (std::size_t i = 0; i < n; i++)
        y[i] = x[i] * g;
}
