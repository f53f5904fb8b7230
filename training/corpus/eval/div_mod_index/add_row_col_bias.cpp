#include <cstddef>

// a[i][j] = a[i][j] * cb[j] + rb[i] over a flattened index split with / and %.
// perfalign: size(a)=rows*cols, size(rb)=rows, size(cb)=cols
void add_row_col_bias(double *a, const double *rb, const double *cb, std::size_t rows, std::size_t cols) {
    for (std::size_t t = 0; t < rows * cols; t++) {
        const std::size_t i = t / cols;
        const std::size_t j = t % cols;
        a[t] = a[t] * cb[j] + rb[i];
    }
}
