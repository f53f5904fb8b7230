#include <stddef.h>
#include <math.h>

double sum_pow4(const double *x, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double v = x[i];
        s += 2 * (v * v * v * v);
    }
    return s;
}
