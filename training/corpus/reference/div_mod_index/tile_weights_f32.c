#include <stddef.h>

void tile_weights_f32(const float *x, float *y, int n, const float *w, int period) {
    int k = 0;
    for (int i = 0; i < n; i++) {
        y[i] += x[i] * w[k];
        if (++k == period)
            k = 0;
    }
}
