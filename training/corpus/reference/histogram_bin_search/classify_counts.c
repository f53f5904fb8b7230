#include <stddef.h>

void classify_counts(const long *x, long n, int *hist) {
    for (int b = 0; b < 12; b++)
        hist[b] = 0;
    for (long i = 0; i < n; i++) {
        const unsigned long q = x[i] < -60 ? 0
            : ((unsigned long)x[i] - (unsigned long)(-60)) / 12;
        const int b = q > 11 ? 11 : (int)q;
        hist[b]++;
    }
}
