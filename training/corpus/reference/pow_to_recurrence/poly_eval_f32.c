#include <stddef.h>
#include <math.h>

void poly_eval_f32(const float *c, size_t degree, const float *x, float *y, size_t n) {
    for (size_t i = 0; i < n; i++) {
        float acc = c[degree];
        for (size_t k = degree; k-- > 0;)
            acc = acc * x[i] + c[k];
        y[i] = acc;
    }
}
