#include <stddef.h>
#include <math.h>

double sum_pow5(const float *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        const double v = x[i];
        s += 2 * (v * v * v * v * v);
    }
    return s;
}
