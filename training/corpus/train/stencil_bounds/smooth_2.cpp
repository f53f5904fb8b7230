#include <cstddef>

// A 7-point weighted stencil (missing neighbours count as 0).
// perfalign: noalias
void smooth_2(const float *in, float *out, int n) {
    static const float wt[7] = {3.0f, 2.0f, 3.0f, 2.0f, 3.0f, 2.0f, 3.0f};
    for (int i = 0; i < n; i++) {
        float s = 0.0f;
        for (int d = -3; d <= 3; d++) {
            const int j = i + d;
            if (j >= 0 && j < n)
                s += wt[d + 3] * in[j];
        }
        out[i] = s;
    }
}
