#include <stddef.h>

void scale_by_energy_f64(const double *x, double *y, long n, const double *coef, long k) {
    double g = 0.0;
    for (long j = 0; j < k; j++)
        g += coef[j] * coef[j];
    for (long i = 0; i < n; i++)
        y[i] += x[i] * g;
}
