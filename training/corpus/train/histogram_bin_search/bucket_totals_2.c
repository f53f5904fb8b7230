#include <stddef.h>

/* Histogram over 12 bins of width 7 from -100 (the last bin takes the rest);
 * each value walks the bin edges from the first.
 * perfalign: size(h)=12, noalias
 */
void bucket_totals_2(const int *v, long n, long *h) {
    for (int b = 0; b < 12; b++)
        h[b] = 0;
    for (long i = 0; i < n; i++) {
        int b = 0;
        while (b + 1 < 12 && v[i] >= -100 + (b + 1) * 7)
            b++;
        h[b]++;
    }
}
