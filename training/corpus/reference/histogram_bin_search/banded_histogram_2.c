#include <stddef.h>

void banded_histogram_2(const short *v, long n, long *h) {
    for (int b = 0; b < 30; b++)
        h[b] = 0;
    for (long i = 0; i < n; i++) {
        const long d = (long)v[i] - (0);
        int b = d < 0 ? 0 : (int)(d / 7);
        if (b > 29)
            b = 29;
        h[b]++;
    }
}
