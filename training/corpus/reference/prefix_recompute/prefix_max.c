#include <stddef.h>

void prefix_max(const float *in, float *out, size_t n) {
    if (n == 0)
        return;
    float s = in[0];
    for (size_t i = 0; i < n; i++) {
        if (in[i] > s) s = in[i];
        out[i] = s;
    }
}
