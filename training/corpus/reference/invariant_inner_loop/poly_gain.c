#include <stddef.h>

void poly_gain(const double *x, double *y, size_t n, const double *coef, size_t k, double z) {
    double g = 0.0;
    for (size_t j = 0; j < k; j++)
        g = g * z + coef[j];
    for (size_t i = 0; i < n; i++)
        y[i] = x[i] * g + y[i] * g;
}
