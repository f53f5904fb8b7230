#include <stddef.h>

/* out[i] = count_pos of in[i..n), recomputed from scratch for every i. */
/* perfalign: noalias */
void suffix_positive_count_i16(const short *a, long *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        long s = 0;
        for (size_t j = n; j-- > i;)
            if (a[j] > 0) s++;
        p[i] = s;
    }
}
