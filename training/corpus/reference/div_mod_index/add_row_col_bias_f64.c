#include <stddef.h>

void add_row_col_bias_f64(double *a, const double *rb, const double *cb, long rows, long cols) {
    for (long i = 0; i < rows; i++)
        for (long j = 0; j < cols; j++)
            a[i * cols + j] = a[i * cols + j] * cb[j] + rb[i];
}
