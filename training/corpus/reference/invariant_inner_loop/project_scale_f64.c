#include <stddef.h>

void project_scale_f64(const double *x, double *y, long n, const double *coef, long k, const double *u) {
    double g = 0.0;
    for (long j = 0; j < k; j++)
        g += coef[j] * u[j];
    for (long i = 0; i < n; i++)
        y[i] += x[i] * g;
}
