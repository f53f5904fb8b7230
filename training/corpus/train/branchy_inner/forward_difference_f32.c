#include <stddef.h>

/* Backward differences with index tests in the loop body. */
/* perfalign: noalias */
void forward_difference_f32(const float *x, float *d, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (i == 0)
            d[i] = 0.0f;
        else if (i == n - 1)
            d[i] = x[i] - x[i - 1];
        else
            d[i] = x[i] - x[i - 1];
    }
}
