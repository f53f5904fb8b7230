#include <stddef.h>

/* Histogram over 12 bins of width 12 from -60 (the last bin takes the rest);
 * each value walks the bin edges from the first.
 * perfalign: size(hist)=12, noalias
 */
void classify_counts(const long *x, long n, int *hist) {
    for (int b = 0; b < 12; b++)
        hist[b] = 0;
    for (long i = 0; i < n; i++) {
        int b = 0;
        while (b + 1 < 12 && x[i] >= -60 + (b + 1) * 12)
            b++;
        hist[b]++;
    }
}
