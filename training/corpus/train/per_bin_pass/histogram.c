#include <stddef.h>

/* Histogram of 24 bins; the data is scanned once per bin.
 * perfalign: size(h)=24, noalias
 */
void histogram(const unsigned *v, size_t n, int *h) {
    for (int b = 0; b < 24; b++) {
        h[b] = 0;
        for (size_t i = 0; i < n; i++) {
            const int k = v[i] % 24;
            if (k == b)
                h[b]++;
        }
    }
}
