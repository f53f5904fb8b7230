#include <cstddef>

// Differences along each row, with the last column tested on every element.
// perfalign: size(a)=rows*cols, size(g)=rows*cols, noalias
void row_diffs(const double *a, double *g, long rows, long cols) {
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++) {
            if (j + 1 == cols)
                g[i * cols + j] = 0.0;
            else
                g[i * cols + j] = a[i * cols + j + 1] - a[i * cols + j];
        }
}
