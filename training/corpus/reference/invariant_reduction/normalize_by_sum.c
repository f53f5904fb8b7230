#include <stddef.h>

void normalize_by_sum(const float *src, float *dst, long n) {
    double total = 0.0;
    for (long j = 0; j < n; j++)
        total += src[j];
    for (long i = 0; i < n; i++) {
        dst[i] = (float)(src[i] / total);
    }
}
