#include <stddef.h>

/* Multiply each column j of a rows x cols row-major matrix by s[j]; walks columns first. */
void scale_columns(double *m, const double *s, size_t rows, size_t cols) {
    for (size_t j = 0; j < cols; j++)
        for (size_t i = 0; i < rows; i++)
            m[i * cols + j] *= s[j];
}
