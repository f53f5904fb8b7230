#include <stddef.h>

double saturated_sum_f64(const double *x, long n, double lo, double hi) {
    double s = 0.0;
    for (long i = 0; i < n; i++) {
        double v = x[i];
        s += v < lo ? lo : (v > hi ? hi : v);
    }
    return s;
}
