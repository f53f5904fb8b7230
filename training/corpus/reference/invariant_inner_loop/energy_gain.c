#include <stddef.h>

void energy_gain(const double *x, double *y, size_t n, const double *gw, size_t ng) {
    double g = 0.0;
    for (size_t j = 0; j < ng; j++)
        g += gw[j] * gw[j];
    for (size_t i = 0; i < n; i++)
        y[i] += x[i] * g;
}
