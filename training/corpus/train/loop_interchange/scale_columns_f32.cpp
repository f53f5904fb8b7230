#include <cstddef>

// Multiply every column j of a row-major h x w array by s[j]; the inner loop strides across the layout.
// perfalign: size(a)=h*w, size(s)=w, noalias
void scale_columns_f32(float *a, const float *s, long h, long w) {
    for (long j = 0; j < w; j++) {
        for (long i = 0; i < h; i++)
            a[i * w + j] *= s[j];
    }
}
