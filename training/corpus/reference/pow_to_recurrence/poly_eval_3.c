#include <stddef.h>
#include <math.h>

void poly_eval_3(const float *c, int degree, const float *x, float *y, int n) {
    for (int i = 0; i < n; i++) {
        float acc = c[degree];
        for (int k = degree; k-- > 0;)
            acc = acc * x[i] + c[k];
        y[i] = acc;
    }
}
