#include <cstddef>
#include <cmath>

double decayed_total_2(const double *x, long n) {
    double s = 0.0, f = 1.0;
    for (long i = 0; i < n; i++) {
        s += x[i] * f;
        f *= 0.999;
    }
    return s;
}
