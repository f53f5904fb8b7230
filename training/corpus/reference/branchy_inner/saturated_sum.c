#include <stddef.h>

double saturated_sum(const float *x, size_t n, float lo, float hi) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        s += v < lo ? lo : (v > hi ? hi : v);
    }
    return s;
}
