#include <cstddef>
#include <cmath>

// sum of sin(v) * v over all elements, in one serial loop.
double sum_transformed_f32(const float *x, std::size_t n) {
    double s = 0.0;
    for (std::size_t i = 0; i < n; i++) {
        const double v = x[i];
        s += std::sin(v) * v;
    }
    return s;
}
