#include <stddef.h>

void forward_difference_f32(const float *x, float *d, size_t n) {
    if (n == 0)
        return;
    d[0] = 0.0f;
    for (size_t i = 1; i < n; i++)
        d[i] = x[i] - x[i - 1];
}
