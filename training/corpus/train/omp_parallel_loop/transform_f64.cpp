#include <cstddef>
#include <cmath>

// y[i] = sqrt(v*v + 1) for every element; every iteration is independent.
// perfalign: noalias
void transform_f64(const double *x, double *y, std::size_t n) {
    for (std::size_t i = 0; i < n; i++) {
        const double v = x[i];
        y[i] = static_cast<double>(std::sqrt(v * v + 1.0));
    }
}
