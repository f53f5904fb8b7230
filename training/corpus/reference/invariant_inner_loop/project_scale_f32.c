#include <stddef.h>

void project_scale_f32(const float *x, float *y, int n, const float *w, int m, const float *u) {
    float g = 0.0f;
    for (int j = 0; j < m; j++)
        g += w[j] * u[j];
    for (int i = 0; i < n; i++)
        y[i] = x[i] * g;
}
