#include <cstddef>

void blend_fields(const double *a, const double *b, double *out, long planes, long rows, long cols) {
    for (long i = 0; i < planes; i++)
        for (long j = 0; j < rows; j++)
            for (long k = 0; k < cols; k++)
                out[(i * rows + j) * cols + k] = a[(i * rows + j) * cols + k] - 0.5 * b[(i * rows + j) * cols + k];
}
