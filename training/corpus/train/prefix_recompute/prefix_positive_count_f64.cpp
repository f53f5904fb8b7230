#include <cstddef>

// out[i] = count_pos of in[0..i], recomputed from scratch for every i.
// perfalign: noalias
void prefix_positive_count_f64(const double *data, long *result, long n) {
    for (long i = 0; i < n; i++) {
        long s = 0;
        for (long j = 0; j <= i; j++)
            if (data[j] > 0) s++;
        result[i] = s;
    }
}
