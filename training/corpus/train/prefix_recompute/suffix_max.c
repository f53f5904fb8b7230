#include <stddef.h>

/* out[i] = max of in[i..n), recomputed from scratch for every i. */
/* perfalign: noalias */
void suffix_max(const long *x, long *acc, size_t n) {
    for (size_t i = 0; i < n; i++) {
        long s = x[n - 1];
        for (size_t j = n; j-- > i;)
            if (x[j] > s) s = x[j];
        acc[i] = s;
    }
}
