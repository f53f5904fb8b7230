#include <stddef.h>

void scale_by_dot(const double *x, double *y, size_t n, const double *taps, size_t nt, const double *u) {
    double g = 0.0;
    for (size_t j = 0; j < nt; j++)
        g += taps[j] * u[j];
    for (size_t i = 0; i < n; i++)
        y[i] = x[i] * g + y[i] * g;
}
