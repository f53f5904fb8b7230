#include <cstddef>
#include <cmath>

double moment3_f64(const double *x, long n) {
    double s = 0.0;
    for (long i = 0; i < n; i++) {
        const double v = x[i];
        s += 2 * (v * v * v);
    }
    return s;
}
