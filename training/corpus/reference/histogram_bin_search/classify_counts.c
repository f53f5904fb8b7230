#include <stddef.h>

void classify_counts(const long *x, long n, int *hist) {
    for (int b = 0; b < 12; b++)
        hist[b] = 0;
    for (long i = 0; i < n; i++) {
        const long d = (long)x[i] - (-60);
        int b = d < 0 ? 0 : (int)(d / 12);
        if (b > 11)
            b = 11;
        hist[b]++;
    }
}
