#include <stddef.h>

void classify_counts_i16(const short *v, const double *w, size_t n, double *h) {
    for (int b = 0; b < 20; b++)
        h[b] = 0;
    for (size_t i = 0; i < n; i++) {
        const long d = (long)v[i] - (0);
        int b = d < 0 ? 0 : (int)(d / 12);
        if (b > 19)
            b = 19;
        h[b]+= w[i];
    }
}
