#include <cstddef>
#include <cmath>

// Sum of x[i] * 0.999^i with pow() for every weight.
double decayed_total_2(const double *x, long n) {
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += x[i] * std::pow(0.999, static_cast<double>(i));
    return s;
}
