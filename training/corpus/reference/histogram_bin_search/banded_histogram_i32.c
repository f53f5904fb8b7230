#include <stddef.h>

void banded_histogram_i32(const int *x, long n, long *hist) {
    for (int b = 0; b < 8; b++)
        hist[b] = 0;
    for (long i = 0; i < n; i++) {
        const long d = (long)x[i] - (0);
        int b = d < 0 ? 0 : (int)(d / 10);
        if (b > 7)
            b = 7;
        hist[b]++;
    }
}
