#include <math.h>

/* Weighted sum; the weight exp(scale) is recomputed for every element. */
double weighted_sum(const double *x, int n, double scale) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * exp(scale);
    return s;
}
