#include <stddef.h>
#include <math.h>

double energy_total(const double *samples, long n) {
    double s = 0.0;
#pragma omp parallel for reduction(+ : s)
    for (long i = 0; i < n; i++) {
        const double v = samples[i];
        s += sqrt(v * v + 1.0);
    }
    return s;
}
