#include <stddef.h>
#include <math.h>

/* y[i] = sqrt(v*v + 1) for every element; every iteration is independent. */
void map_values_f32(const float *x, float *y, long n) {
    for (long i = 0; i < n; i++) {
        const double v = x[i];
        y[i] = (float)(sqrt(v * v + 1.0));
    }
}
