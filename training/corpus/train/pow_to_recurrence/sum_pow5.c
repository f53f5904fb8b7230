#include <stddef.h>
#include <math.h>

/* Sum of 2 * x[i]^5 through pow(). */
double sum_pow5(const float *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += 2 * pow(x[i], 5.0);
    return s;
}
