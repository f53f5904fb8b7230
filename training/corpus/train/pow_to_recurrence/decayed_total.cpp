#include <cstddef>
#include <cmath>

// Sum of x[i] * 0.9995^i with pow() for every weight.
double decayed_total(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * std::pow(0.9995, static_cast<double>(i));
    return s;
}
