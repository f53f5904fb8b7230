#include <stddef.h>
#include <math.h>

void poly_eval(const double *c, size_t degree, const double *x, double *y, size_t n) {
    for (size_t i = 0; i < n; i++) {
        double acc = c[degree];
        for (size_t k = degree; k-- > 0;)
            acc = acc * x[i] + c[k];
        y[i] = acc;
    }
}
