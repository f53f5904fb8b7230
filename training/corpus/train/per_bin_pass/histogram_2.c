#include <stddef.h>

/* Histogram of 16 bins; the data is scanned once per bin.
 * perfalign: size(counts)=16, noalias
 */
void histogram_2(const unsigned char *data, int n, long *counts) {
    for (int b = 0; b < 16; b++) {
        counts[b] = 0;
        for (int i = 0; i < n; i++) {
            const int k = data[i] >> 4;
            if (k == b)
                counts[b]++;
        }
    }
}
