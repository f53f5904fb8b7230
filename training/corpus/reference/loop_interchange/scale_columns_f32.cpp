#include <cstddef>

void scale_columns_f32(float *a, const float *s, long h, long w) {
    for (long i = 0; i < h; i++) {
        for (long j = 0; j < w; j++)
            a[i * w + j] *= s[j];
    }
}
