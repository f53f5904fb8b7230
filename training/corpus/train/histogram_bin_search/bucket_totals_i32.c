#include <stddef.h>

/* Histogram over 30 bins of width 3 from 0 (the last bin takes the rest);
 * each value walks the bin edges from the first.
 * perfalign: size(h)=30, noalias
 */
void bucket_totals_i32(const int *v, const double *w, long n, double *h) {
    for (int b = 0; b < 30; b++)
        h[b] = 0;
    for (long i = 0; i < n; i++) {
        int b = 0;
        while (b + 1 < 30 && v[i] >= 0 + (b + 1) * 3)
            b++;
        h[b]+= w[i];
    }
}
