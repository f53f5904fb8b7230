#include <math.h>

double weighted_sum(const double *x, int n, double scale) {
    double s = 0.0;
    const double w = exp(scale);
    #pragma omp parallel for
    for (int i = 0; i < n; i++)
        s += x[i] * w;
    return s;
}
