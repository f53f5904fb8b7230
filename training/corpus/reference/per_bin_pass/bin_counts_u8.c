#include <stddef.h>

void bin_counts_u8(const unsigned char *data, size_t n, long *counts) {
    for (int b = 0; b < 32; b++)
        counts[b] = 0;
    for (size_t i = 0; i < n; i++) {
        const int k = data[i] >> 3;
        counts[k]++;
    }
}
