#include <stddef.h>

/* y[i] = a * x[i] + y[i], with the scale given as a divisor. */
void saxpy_div(float *y, const float *x, float d, size_t n) {
    for (size_t i = 0; i < n; i++)
        y[i] = x[i] / d + y[i];
}
