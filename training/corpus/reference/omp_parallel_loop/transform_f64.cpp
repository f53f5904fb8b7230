#include <cstddef>
#include <cmath>

void transform_f64(const double *x, double *y, std::size_t n) {
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; i++) {
        const double v = x[i];
        y[i] = static_cast<double>(std::sqrt(v * v + 1.0));
    }
}
