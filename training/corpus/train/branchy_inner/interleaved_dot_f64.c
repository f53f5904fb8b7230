#include <stddef.h>

/* Dot product with a parity branch whose two arms compute the same product. */
double interleaved_dot_f64(const double *x, const double *y, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        if (i % 2 == 0)
            s += x[i] * y[i];
        else
            s += y[i] * x[i];
    }
    return s;
}
