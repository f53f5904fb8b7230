#include <cstddef>

void row_diffs(const double *a, double *g, long rows, long cols) {
    for (long i = 0; i < rows; i++) {
        if (cols == 0)
            continue;
        for (long j = 0; j + 1 < cols; j++)
            g[i * cols + j] = a[i * cols + j + 1] - a[i * cols + j];
        g[i * cols + cols - 1] = 0.0;
    }
}
