#include <cstddef>

void row_diffs_i32(const int *a, int *g, int rows, int cols) {
    for (int i = 0; i < rows; i++) {
        if (cols == 0)
            continue;
        for (int j = 0; j + 1 < cols; j++)
            g[i * cols + j] = a[i * cols + j + 1] - a[i * cols + j];
        g[i * cols + cols - 1] = 0;
    }
}
