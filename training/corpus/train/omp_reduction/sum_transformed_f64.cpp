#include <cstddef>
#include <cmath>

// sum of sqrt(v*v + 1) over all elements, in one serial loop.
double sum_transformed_f64(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        const double v = x[i];
        s += std::sqrt(v * v + 1.0);
    }
    return s;
}
