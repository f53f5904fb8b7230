#include <math.h>

double weighted_sum(const double *x, int n, double scale) {
    const double w = exp(scale) / (1.0 + pow(scale, 1.5));
    double s = 0.0;
    #pragma omp parallel for
    for (int i = 0; i < n; i++)
        s += x[i] * w;
    return s;
}
