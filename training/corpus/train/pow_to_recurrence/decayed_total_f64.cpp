#include <cstddef>
#include <cmath>

// Sum of x[i] * 0.9999^i with pow() for every weight.
double decayed_total_f64(const double *x, std::size_t n) {
    double s = 0.0;
    for (std::size_t i = 0; i < n; i++)
        s += x[i] * std::pow(0.9999, static_cast<double>(i));
    return s;
}
