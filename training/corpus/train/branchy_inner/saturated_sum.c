#include <stddef.h>

/* Sum of x clamped to [lo, hi], the clamp written as nested branches. */
double saturated_sum(const float *x, size_t n, float lo, float hi) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
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
