#include <cstddef>
#include <cmath>

double decayed_total_f64(const double *x, std::size_t n) {
    double s = 0.0, f = 1.0;
    for (std::size_t i = 0; i < n; i++) {
        s += x[i] * f;
        f *= 0.9999;
    }
    return s;
}
