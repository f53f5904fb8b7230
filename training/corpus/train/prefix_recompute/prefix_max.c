#include <stddef.h>

/* out[i] = max of in[0..i], recomputed from scratch for every i. */
/* perfalign: noalias */
void prefix_max(const float *in, float *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        float s = in[0];
        for (size_t j = 0; j <= i; j++)
            if (in[j] > s) s = in[j];
        out[i] = s;
    }
}
