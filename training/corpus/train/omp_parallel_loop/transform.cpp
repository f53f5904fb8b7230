#include <cstddef>
#include <cmath>

// y[i] = sqrt(|v|) + exp(v) for every element; every iteration is independent.
// perfalign: noalias
void transform(const float *x, float *y, std::size_t n) {
    for (std::size_t i = 0; i < n; i++) {
        const double v = x[i];
        y[i] = static_cast<float>(std::sqrt(std::fabs(v)) + std::exp(v));
    }
}
