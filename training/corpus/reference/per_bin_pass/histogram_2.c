#include <stddef.h>

void histogram_2(const unsigned char *data, int n, long *counts) {
    for (int b = 0; b < 16; b++)
        counts[b] = 0;
    for (int i = 0; i < n; i++) {
        const int k = data[i] >> 4;
        counts[k]++;
    }
}
