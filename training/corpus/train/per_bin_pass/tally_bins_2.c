#include <stddef.h>

/* Histogram of 100 bins; the data is scanned once per bin.
 * perfalign: size(hist)=100, noalias
 */
void tally_bins_2(const unsigned *px, int npix, long *hist) {
    for (int b = 0; b < 100; b++) {
        hist[b] = 0;
        for (int i = 0; i < npix; i++) {
            const int k = px[i] % 100;
            if (k == b)
                hist[b]++;
        }
    }
}
