#include <cstddef>

double weighted_alternating_sum_f32(const float *x, const float *y, std::size_t n) {
    double s = 0.0;
    for (std::size_t i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}
