#include <stddef.h>
#include <math.h>

long count_strong(const double *x, long n) {
    long s = 0;
#pragma omp parallel for reduction(+ : s)
    for (long i = 0; i < n; i++) {
        const double v = x[i];
        if (sin(v) * v > 1.2)
            s++;
    }
    return s;
}
