#include <stddef.h>

void normalize_by_sum_2(const float *v, float *w, size_t n) {
    double total = 0.0;
    for (size_t j = 0; j < n; j++)
        total += v[j];
    for (size_t i = 0; i < n; i++) {
        w[i] = (float)(v[i] / total);
    }
}
