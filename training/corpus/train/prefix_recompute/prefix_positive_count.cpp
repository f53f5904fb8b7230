#include <cstddef>

// out[i] = count_pos of in[0..i], recomputed from scratch for every i.
// perfalign: noalias
void prefix_positive_count(const float *a, long *p, int n) {
    for (int i = 0; i < n; i++) {
        long s = 0;
        for (int j = 0; j <= i; j++)
            if (a[j] > 0) s++;
        p[i] = s;
    }
}
