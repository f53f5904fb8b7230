#include <stddef.h>

void row_sums(const int *a, long *out, size_t height, size_t width) {
    for (size_t i = 0; i < height; i++) {
        long acc = 0;
        for (size_t j = 0; j < width; j++)
            acc += a[i * width + j];
        out[i] = acc;
    }
}
