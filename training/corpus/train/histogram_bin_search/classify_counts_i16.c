#include <stddef.h>

/* Histogram over 20 bins of width 12 from 0 (the last bin takes the rest);
 * each value walks the bin edges from the first.
 * perfalign: size(h)=20, noalias
 */
void classify_counts_i16(const short *v, const double *w, size_t n, double *h) {
    for (int b = 0; b < 20; b++)
        h[b] = 0;
    for (size_t i = 0; i < n; i++) {
        int b = 0;
        while (b + 1 < 20 && v[i] >= 0 + (b + 1) * 12)
            b++;
        h[b]+= w[i];
    }
}
