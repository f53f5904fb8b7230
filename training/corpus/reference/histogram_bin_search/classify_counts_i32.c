#include <stddef.h>

void classify_counts_i32(const int *temps, long n, int *bands) {
    for (int b = 0; b < 8; b++)
        bands[b] = 0;
    for (long i = 0; i < n; i++) {
        const long d = (long)temps[i] - (-60);
        const long q = d < 0 ? 0 : d / 7;
        const int b = q > 7 ? 7 : (int)q;
        bands[b]++;
    }
}
