#include <stddef.h>

void scale_by_poly(const float *x, float *y, int n, const float *coef, int k, float z) {
    float g = 0.0f;
    for (int j = 0; j < k; j++)
        g = g * z + coef[j];
    for (int i = 0; i < n; i++)
        y[i] = x[i] * g + y[i] * g;
}
