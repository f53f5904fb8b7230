#include <stddef.h>

/* A 7-point weighted stencil (missing neighbours count as 0). */
/* perfalign: noalias */
void blur_line(const float *in, float *out, long n) {
    static const float wt[7] = {4.0f, 2.0f, 4.0f, 4.0f, 4.0f, 2.0f, 4.0f};
    for (long i = 0; i < n; i++) {
        float s = 0.0f;
        for (long d = -3; d <= 3; d++) {
            const long j = i + d;
            if (j >= 0 && j < n)
                s += wt[d + 3] * in[j];
        }
        out[i] = s;
    }
}
