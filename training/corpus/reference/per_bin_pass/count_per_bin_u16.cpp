#include <cstddef>

void count_per_bin_u16(const unsigned short *x, int len, long *bins) {
    for (int b = 0; b < 32; b++)
        bins[b] = 0;
    for (int i = 0; i < len; i++) {
        const int k = x[i] & 31;
        bins[k]++;
    }
}
