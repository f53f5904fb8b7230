#include <stddef.h>

void bias_grid_f64(double *a, const double *rb, const double *cb, int rows, int cols) {
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            a[i * cols + j] = a[i * cols + j] * cb[j] + rb[i];
}
