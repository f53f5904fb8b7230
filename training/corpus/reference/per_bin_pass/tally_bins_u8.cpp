#include <cstddef>

void tally_bins_u8(const unsigned char *x, std::size_t len, unsigned *bins) {
    for (int b = 0; b < 64; b++)
        bins[b] = 0;
    for (std::size_t i = 0; i < len; i++) {
        const int k = x[i] >> 2;
        bins[k]++;
    }
}
