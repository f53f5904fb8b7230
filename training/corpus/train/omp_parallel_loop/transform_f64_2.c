#include <stddef.h>
#include <math.h>

/* y[i] = exp(-v*v) for every element; every iteration is independent. */
/* perfalign: noalias */
void transform_f64_2(const double *x, double *y, long n) {
    for (long i = 0; i < n; i++) {
        const double v = x[i];
        y[i] = (double)(exp(-v * v));
    }
}
