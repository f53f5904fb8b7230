#include <stddef.h>

/* Histogram of 12 bins; the data is scanned once per bin.
 * perfalign: size(bins)=12, range(x)=-100..100, noalias
 */
void histogram_i64_2(const long *x, size_t len, unsigned *bins) {
    for (int b = 0; b < 12; b++) {
        bins[b] = 0;
        for (size_t i = 0; i < len; i++) {
            const int k = (x[i] + 100) / 20;
            if (k == b)
                bins[b]++;
        }
    }
}
