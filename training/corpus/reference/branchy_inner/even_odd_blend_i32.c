#include <stddef.h>

int even_odd_blend_i32(const int *x, const int *y, long n) {
    int s = 0;
    for (long i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}
