#include <cstddef>

// A 5-point weighted stencil (missing neighbours count as 0).
// perfalign: noalias
void weighted_neighbors_f32(const float *in, float *out, long n) {
    static const float wt[5] = {2.0f, 2.0f, 4.0f, 2.0f, 2.0f};
    for (long i = 0; i < n; i++) {
        float s = 0.0f;
        for (long d = -2; d <= 2; d++) {
            const long j = i + d;
            if (j >= 0 && j < n)
                s += wt[d + 2] * in[j];
        }
        out[i] = s;
    }
}
