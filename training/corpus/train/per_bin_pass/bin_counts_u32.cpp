#include <cstddef>

// Histogram of 8 bins; the data is scanned once per bin.
// perfalign: size(bins)=8
void bin_counts_u32(const unsigned *x, long len, unsigned *bins) {
    for (int b = 0; b < 8; b++) {
        bins[b] = 0;
        for (long i = 0; i < len; i++) {
            const int k = x[i] & 7;
            if (k == b)
                bins[b]++;
        }
    }
}
