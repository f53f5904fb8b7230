#include <stddef.h>

void cyclic_scale_i32(const int *x, int *y, long n, const int *w, long period) {
    long k = 0;
    for (long i = 0; i < n; i++) {
        y[i] += x[i] * w[k];
        if (++k == period)
            k = 0;
    }
}
