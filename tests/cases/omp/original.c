#include <math.h>

/* Weighted sum; the weight is recomputed for every element. */
double weighted_sum(const double *x, int n, double scale) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * (exp(scale) / (1.0 + pow(scale, 1.5)));
    return s;
}
