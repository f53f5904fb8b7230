#include <cstddef>

// A 5-point weighted stencil (missing neighbours count as 0).
// perfalign: noalias
void blur_line_3(const float *in, float *out, int n) {
    static const float wt[5] = {4.0f, 1.0f, 2.0f, 1.0f, 4.0f};
    for (int i = 0; i < n; i++) {
        float s = 0.0f;
        for (int d = -2; d <= 2; d++) {
            const int j = i + d;
            if (j >= 0 && j < n)
                s += wt[d + 2] * in[j];
        }
        out[i] = s;
    }
}
