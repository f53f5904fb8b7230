#include <stddef.h>

void classify_counts_i16(const short *v, const double *w, size_t n, double *h) {
    for (int b = 0; b < 20; b++)
        h[b] = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned long q = v[i] < 0 ? 0
            : ((unsigned long)v[i] - (unsigned long)(0)) / 12;
        const int b = q > 19 ? 19 : (int)q;
        h[b]+= w[i];
    }
}
