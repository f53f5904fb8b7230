#include <stddef.h>
#include <math.h>

/* sum of sqrt(v*v + 1) over all elements, in one serial loop. */
double energy_total(const double *samples, long n) {
    double s = 0.0;
    for (long i = 0; i < n; i++) {
        const double v = samples[i];
        s += sqrt(v * v + 1.0);
    }
    return s;
}
