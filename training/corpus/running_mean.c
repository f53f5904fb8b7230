#include <stddef.h>

/* out[i] = mean of in[0..i]; recomputed from scratch for every i. */
void running_mean(const float *in, float *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        float s = 0.0f;
        for (size_t j = 0; j <= i; j++) s += in[j];
        out[i] = s / (float)(i + 1);
    }
}
