#include <stddef.h>

void banded_histogram_i32(const int *x, long n, long *hist) {
    for (int b = 0; b < 8; b++)
        hist[b] = 0;
    for (long i = 0; i < n; i++) {
        const unsigned long q = x[i] < 0 ? 0
            : ((unsigned long)x[i] - (unsigned long)(0)) / 10;
        const int b = q > 7 ? 7 : (int)q;
        hist[b]++;
    }
}
