#include <stddef.h>

void scale_by_poly_f32(const float *x, float *y, size_t n, const float *w, size_t m, float z) {
    float g = 0.0f;
    for (size_t j = 0; j < m; j++)
        g = g * z + w[j];
    for (size_t i = 0; i < n; i++)
        y[i] = x[i] * g;
}
