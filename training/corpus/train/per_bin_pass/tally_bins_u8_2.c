#include <stddef.h>

/* Histogram of 64 bins; the data is scanned once per bin.
 * perfalign: size(hist)=64, noalias
 */
void tally_bins_u8_2(const unsigned char *px, int npix, int *hist) {
    for (int b = 0; b < 64; b++) {
        hist[b] = 0;
        for (int i = 0; i < npix; i++) {
            const int k = px[i] >> 2;
            if (k == b)
                hist[b]++;
        }
    }
}
