#include <stddef.h>

/* Dot product with a parity branch whose two arms compute the same product. */
int even_odd_blend_i32(const int *x, const int *y, long n) {
    int s = 0;
    for (long i = 0; i < n; i++) {
        if (i % 2 == 0)
            s += x[i] * y[i];
        else
            s += y[i] * x[i];
    }
    return s;
}
