#include <cstddef>

void scale_by_dot_f64(const double *x, double *y, long n, const double *w, long m, const double *u) {
    double g = 0.0;
    for (long j = 0; j < m; j++)
        g += w[j] * u[j];
    for (long i = 0; i < n; i++)
        y[i] = x[i] * g + y[i] * g;
}
