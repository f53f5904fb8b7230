#include <stddef.h>

void histogram_i64(const long *data, int n, unsigned *counts) {
    for (int b = 0; b < 52; b++)
        counts[b] = 0;
    for (int i = 0; i < n; i++) {
        const int k = (data[i] + 100) / 4;
        counts[k]++;
    }
}
