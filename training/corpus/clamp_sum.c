#include <stddef.h>

/* Sum of x[i] clamped to [lo, hi], with the clamp written as nested branches. */
double clamp_sum(const double *x, size_t n, double lo, double hi) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) {
        double v = x[i];
        if (v < lo) {
            s += lo;
        } else {
            if (v > hi) s += hi;
            else s += v;
        }
    }
    return s;
}
