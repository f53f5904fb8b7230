#include <stddef.h>

/* Each element divided by the sum of all elements; the reduction is recomputed for every element. */
/* perfalign: noalias */
void normalize_by_sum_2(const float *v, float *w, size_t n) {
    for (size_t i = 0; i < n; i++) {
        double total = 0.0;
        for (size_t j = 0; j < n; j++)
            total += v[j];
        w[i] = (float)(v[i] / total);
    }
}
