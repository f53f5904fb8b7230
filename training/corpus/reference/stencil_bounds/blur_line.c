#include <stddef.h>

void blur_line(const float *in, float *out, long n) {
    static const float wt[7] = {4.0f, 2.0f, 4.0f, 4.0f, 4.0f, 2.0f, 4.0f};
    for (long i = 0; i < n; i++) {
        if (i < 3 || i + 3 >= n) {
            float s = 0.0f;
            for (long d = -3; d <= 3; d++) {
                const long j = i + d;
                if (j >= 0 && j < n)
                    s += wt[d + 3] * in[j];
            }
            out[i] = s;
        }
        else
            out[i] = 0.0f + wt[0] * in[i + -3] + wt[1] * in[i + -2] + wt[2] * in[i + -1] + wt[3] * in[i] + wt[4] * in[i + 1] + wt[5] * in[i + 2] + wt[6] * in[i + 3];
    }
}
