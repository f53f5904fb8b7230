#include <stddef.h>
#include <math.h>

/* y[i] = sin(v) * v for every element; every iteration is independent. */
void map_values(const float *x, float *y, long n) {
    for (long i = 0; i < n; i++) {
        const double v = x[i];
        y[i] = (float)(sin(v) * v);
    }
}
