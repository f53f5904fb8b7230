#include <stddef.h>

/* Each element minus the mean; the reduction is recomputed for every element. */
/* perfalign: noalias */
void subtract_mean(const float *x, float *out, long n) {
    for (long i = 0; i < n; i++) {
        double total = 0.0;
        for (long j = 0; j < n; j++)
            total += x[j];
        out[i] = (float)(x[i] - total / n);
    }
}
