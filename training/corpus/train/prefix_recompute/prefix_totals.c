#include <stddef.h>

/* out[i] = sum of in[0..i], recomputed from scratch for every i. */
/* perfalign: noalias */
void prefix_totals(const int *a, long *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        long s = 0;
        for (size_t j = 0; j <= i; j++)
            s += a[j];
        p[i] = s;
    }
}
