#include <stddef.h>

/* out[i] = sum of in[i..n), recomputed from scratch for every i. */
/* perfalign: noalias */
void suffix_sums_i16(const short *in, int *out, int n) {
    for (int i = 0; i < n; i++) {
        int s = 0;
        for (int j = n; j-- > i;)
            s += in[j];
        out[i] = s;
    }
}
