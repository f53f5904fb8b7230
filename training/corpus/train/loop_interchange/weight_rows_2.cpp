#include <cstddef>

// Multiply every row i of a row-major h x w array by r[i]; the inner loop strides across the layout.
// perfalign: size(a)=h*w, size(r)=h, noalias
void weight_rows_2(float *a, const float *r, std::size_t h, std::size_t w) {
    for (std::size_t j = 0; j < w; j++) {
        for (std::size_t i = 0; i < h; i++)
            a[i * w + j] *= r[i];
    }
}
