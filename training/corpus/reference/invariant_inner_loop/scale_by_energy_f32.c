#include <stddef.h>

void scale_by_energy_f32(const float *x, float *y, int n, const float *gw, int ng) {
    float g = 0.0f;
    for (int j = 0; j < ng; j++)
        g += gw[j] * gw[j];
    for (int i = 0; i < n; i++)
        y[i] = x[i] * g + y[i] * g;
}
