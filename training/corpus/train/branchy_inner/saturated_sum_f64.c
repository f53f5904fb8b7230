#include <stddef.h>

/* Sum of x clamped to [lo, hi], the clamp written as nested branches. */
double saturated_sum_f64(const double *x, long n, double lo, double hi) {
    double s = 0.0;
    for (long i = 0; i < n; i++) {
        double v = x[i];
        if (v < lo) {
            s += lo;
        } else {
            if (v > hi)
                s += hi;
            else
                s += v;
        }
    }
    return s;
}
