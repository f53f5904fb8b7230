#include <cstddef>

void add_row_col_bias(double *a, const double *rb, const double *cb, std::size_t rows, std::size_t cols) {
    for (std::size_t i = 0; i < rows; i++)
        for (std::size_t j = 0; j < cols; j++)
            a[i * cols + j] = a[i * cols + j] * cb[j] + rb[i];
}
