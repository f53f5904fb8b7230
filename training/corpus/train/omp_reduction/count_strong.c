#include <stddef.h>
#include <math.h>

/* count of sin(v) * v over all elements, in one serial loop. */
long count_strong(const double *x, long n) {
    long s = 0;
    for (long i = 0; i < n; i++) {
        const double v = x[i];
        if (sin(v) * v > 1.2)
            s++;
    }
    return s;
}
