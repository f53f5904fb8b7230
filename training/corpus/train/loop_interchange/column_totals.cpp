#include <cstddef>

// Sum of each column of a column-major m x n array; the inner loop strides across the layout.
// perfalign: size(a)=m*n, size(out)=n, noalias
void column_totals(const float *a, float *out, std::size_t m, std::size_t n) {
    for (std::size_t j = 0; j < n; j++)
        out[j] = 0.0f;
    for (std::size_t i = 0; i < m; i++) {
        for (std::size_t j = 0; j < n; j++)
            out[j] += a[j * m + i];
    }
}
