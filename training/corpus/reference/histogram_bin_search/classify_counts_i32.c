#include <stddef.h>

void classify_counts_i32(const int *temps, long n, int *bands) {
    for (int b = 0; b < 8; b++)
        bands[b] = 0;
    for (long i = 0; i < n; i++) {
        const unsigned long q = temps[i] < -60 ? 0
            : ((unsigned long)temps[i] - (unsigned long)(-60)) / 7;
        const int b = q > 7 ? 7 : (int)q;
        bands[b]++;
    }
}
