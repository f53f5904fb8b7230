#include <stddef.h>

void column_scale(int *a, const int *s, long h, long w) {
    for (long i = 0; i < h; i++) {
        for (long j = 0; j < w; j++)
            a[i * w + j] *= s[j];
    }
}
