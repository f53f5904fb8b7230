#include <cstddef>

void bias_grid_i64(long *a, const long *rb, const long *cb, int rows, int cols) {
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            a[i * cols + j] = a[i * cols + j] * cb[j] + rb[i];
}
