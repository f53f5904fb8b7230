#include <cstddef>

// Histogram of 64 bins; the data is scanned once per bin.
// perfalign: size(bins)=64, noalias
void tally_bins(const unsigned *x, std::size_t len, long *bins) {
    for (int b = 0; b < 64; b++) {
        bins[b] = 0;
        for (std::size_t i = 0; i < len; i++) {
            const int k = x[i] & 63;
            if (k == b)
                bins[b]++;
        }
    }
}
