#include <cstddef>

void bin_counts_u8_2(const unsigned char *data, long n, long *counts) {
    for (int b = 0; b < 16; b++)
        counts[b] = 0;
    for (long i = 0; i < n; i++) {
        const int k = data[i] >> 4;
        counts[k]++;
    }
}
