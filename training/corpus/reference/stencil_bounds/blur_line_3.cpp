#include <cstddef>

void blur_line_3(const float *in, float *out, int n) {
    static const float wt[5] = {4.0f, 1.0f, 2.0f, 1.0f, 4.0f};
    for (int i = 0; i < n; i++) {
        if (i < 2 || i + 2 >= n) {
            float s = 0.0f;
            for (int d = -2; d <= 2; d++) {
                const int j = i + d;
                if (j >= 0 && j < n)
                    s += wt[d + 2] * in[j];
            }
            out[i] = s;
        }
        else
            out[i] = 0.0f + wt[0] * in[i + -2] + wt[1] * in[i + -1] + wt[2] * in[i] + wt[3] * in[i + 1] + wt[4] * in[i + 2];
    }
}
