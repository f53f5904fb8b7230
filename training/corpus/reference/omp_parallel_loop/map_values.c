#include <stddef.h>
#include <math.h>

void map_values(const float *x, float *y, long n) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        const double v = x[i];
        y[i] = (float)(sin(v) * v);
    }
}
