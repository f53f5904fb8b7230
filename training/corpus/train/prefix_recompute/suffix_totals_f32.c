#include <stddef.h>

/* out[i] = sum of in[i..n), recomputed from scratch for every i. */
/* perfalign: noalias */
void suffix_totals_f32(const float *data, double *result, int n) {
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = n; j-- > i;)
            s += data[j];
        result[i] = s;
    }
}
