#include <cstddef>
#include <cmath>

void transform(const float *x, float *y, std::size_t n) {
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; i++) {
        const double v = x[i];
        y[i] = static_cast<float>(std::sqrt(std::fabs(v)) + std::exp(v));
    }
}
