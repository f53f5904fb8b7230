#include <stddef.h>

/* A 3-point weighted stencil (missing neighbours count as 0). */
/* perfalign: noalias */
void weighted_neighbors(const float *in, float *out, long n) {
    static const float wt[3] = {3.0f, 4.0f, 3.0f};
    for (long i = 0; i < n; i++) {
        float s = 0.0f;
        for (long d = -1; d <= 1; d++) {
            const long j = i + d;
            if (j >= 0 && j < n)
                s += wt[d + 1] * in[j];
        }
        out[i] = s;
    }
}
