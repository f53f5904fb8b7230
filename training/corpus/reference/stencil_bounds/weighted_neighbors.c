#include <stddef.h>

void weighted_neighbors(const float *in, float *out, long n) {
    static const float wt[3] = {3.0f, 4.0f, 3.0f};
    for (long i = 0; i < n; i++) {
        if (i < 1 || i + 1 >= n) {
            float s = 0.0f;
            for (long d = -1; d <= 1; d++) {
                const long j = i + d;
                if (j >= 0 && j < n)
                    s += wt[d + 1] * in[j];
            }
            out[i] = s;
        }
        else
            out[i] = 0.0f + wt[0] * in[i + -1] + wt[1] * in[i] + wt[2] * in[i + 1];
    }
}
