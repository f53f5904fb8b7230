#include <stddef.h>
#include <math.h>

void poly_eval_2(const double *c, long degree, const double *x, double *y, long n) {
    for (long i = 0; i < n; i++) {
        double acc = c[degree];
        for (long k = degree; k-- > 0;)
            acc = acc * x[i] + c[k];
        y[i] = acc;
    }
}
