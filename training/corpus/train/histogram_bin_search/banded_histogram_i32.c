#include <stddef.h>

/* Histogram over 8 bins of width 10 from 0 (the last bin takes the rest);
 * each value walks the bin edges from the first.
 * perfalign: size(hist)=8, noalias
 */
void banded_histogram_i32(const int *x, long n, long *hist) {
    for (int b = 0; b < 8; b++)
        hist[b] = 0;
    for (long i = 0; i < n; i++) {
        int b = 0;
        while (b + 1 < 8 && x[i] >= 0 + (b + 1) * 10)
            b++;
        hist[b]++;
    }
}
