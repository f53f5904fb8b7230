#include <stddef.h>

void cyclic_scale(const double *x, double *y, long n, const double *w, long period) {
    long k = 0;
    for (long i = 0; i < n; i++) {
        y[i] = x[i] * w[k];
        if (++k == period)
            k = 0;
    }
}
