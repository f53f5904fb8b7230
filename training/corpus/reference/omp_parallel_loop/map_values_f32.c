#include <stddef.h>
#include <math.h>

void map_values_f32(const float *x, float *y, long n) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        const double v = x[i];
        y[i] = (float)(sqrt(v * v + 1.0));
    }
}
