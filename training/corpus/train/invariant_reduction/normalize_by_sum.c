#include <stddef.h>

/* Each element divided by the sum of all elements; the reduction is recomputed for every element. */
/* perfalign: noalias */
void normalize_by_sum(const float *src, float *dst, long n) {
    for (long i = 0; i < n; i++) {
        double total = 0.0;
        for (long j = 0; j < n; j++)
            total += src[j];
        dst[i] = (float)(src[i] / total);
    }
}
