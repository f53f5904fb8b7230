#include <cstddef>

// Histogram of 16 bins; the data is scanned once per bin.
// perfalign: size(bins)=16, noalias
void count_per_bin(const double *x, long len, int *bins) {
    for (int b = 0; b < 16; b++) {
        bins[b] = 0;
        for (long i = 0; i < len; i++) {
            const int k = static_cast<int>((x[i] + 1.0) * 8.0) < 0 ? 0 : (static_cast<int>((x[i] + 1.0) * 8.0) >= 16 ? 15 : static_cast<int>((x[i] + 1.0) * 8.0));
            if (k == b)
                bins[b]++;
        }
    }
}
