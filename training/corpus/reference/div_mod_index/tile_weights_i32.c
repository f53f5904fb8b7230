#include <stddef.h>

void tile_weights_i32(const int *x, int *y, size_t n, const int *w, size_t period) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        y[i] = x[i] - w[k];
        if (++k == period)
            k = 0;
    }
}
