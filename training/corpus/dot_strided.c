#include <stddef.h>

/* Dot product of x and y, accumulated in a volatile-free but branchy loop. */
double dot_strided(const double *x, const double *y, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (i % 2 == 0) s += x[i] * y[i];
        else s += y[i] * x[i];
    }
    return s;
}
