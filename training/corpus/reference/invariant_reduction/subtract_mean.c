#include <stddef.h>

void subtract_mean(const float *x, float *out, long n) {
    double total = 0.0;
    for (long j = 0; j < n; j++)
        total += x[j];
    for (long i = 0; i < n; i++) {
        out[i] = (float)(x[i] - total / n);
    }
}
