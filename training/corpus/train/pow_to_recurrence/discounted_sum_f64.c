#include <stddef.h>
#include <math.h>

/* Sum of x[i] * 0.99^i with pow() for every weight. */
double discounted_sum_f64(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * pow(0.99, (double)(i));
    return s;
}
