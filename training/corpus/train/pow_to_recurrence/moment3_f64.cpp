#include <cstddef>
#include <cmath>

// Sum of 2 * x[i]^3 through pow().
double moment3_f64(const double *x, long n) {
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += 2 * std::pow(x[i], 3.0);
    return s;
}
