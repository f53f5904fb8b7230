#include <stddef.h>

void column_scale_i32(int *a, const int *s, size_t h, size_t w) {
    for (size_t j = 0; j < w; j++) {
        for (size_t i = 0; i < h; i++)
            a[j * h + i] *= s[j];
    }
}
