#include <stddef.h>
#include <math.h>

/* Sum of 2 * x[i]^4 through pow(). */
double sum_pow4(const double *x, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += 2 * pow(x[i], 4.0);
    return s;
}
