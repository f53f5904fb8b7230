#include <stddef.h>

/* Histogram over 8 bins of width 7 from -60 (the last bin takes the rest);
 * each value walks the bin edges from the first.
 * perfalign: size(bands)=8, noalias
 */
void classify_counts_i32(const int *temps, long n, int *bands) {
    for (int b = 0; b < 8; b++)
        bands[b] = 0;
    for (long i = 0; i < n; i++) {
        int b = 0;
        while (b + 1 < 8 && temps[i] >= -60 + (b + 1) * 7)
            b++;
        bands[b]++;
    }
}
