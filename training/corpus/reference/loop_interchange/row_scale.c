#include <stddef.h>

void row_scale(long *a, const long *r, long height, long width) {
    for (long i = 0; i < height; i++) {
        for (long j = 0; j < width; j++)
            a[i * width + j] *= r[i];
    }
}
