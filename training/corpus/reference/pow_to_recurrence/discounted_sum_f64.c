#include <stddef.h>
#include <math.h>

double discounted_sum_f64(const double *x, int n) {
    double s = 0.0, f = 1.0;
    for (int i = 0; i < n; i++) {
        s += x[i] * f;
        f *= 0.99;
    }
    return s;
}
