#include <stddef.h>

void bucket_totals_2(const int *v, long n, long *h) {
    for (int b = 0; b < 12; b++)
        h[b] = 0;
    for (long i = 0; i < n; i++) {
        const unsigned long q = v[i] < -100 ? 0
            : ((unsigned long)v[i] - (unsigned long)(-100)) / 7;
        const int b = q > 11 ? 11 : (int)q;
        h[b]++;
    }
}
