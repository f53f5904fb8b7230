#include <stddef.h>

/* Histogram over 30 bins of width 7 from 0 (the last bin takes the rest);
 * each value walks the bin edges from the first.
 * perfalign: size(h)=30
 */
void banded_histogram_2(const short *v, long n, long *h) {
    for (int b = 0; b < 30; b++)
        h[b] = 0;
    for (long i = 0; i < n; i++) {
        int b = 0;
        while (b + 1 < 30 && v[i] >= 0 + (b + 1) * 7)
            b++;
        h[b]++;
    }
}
