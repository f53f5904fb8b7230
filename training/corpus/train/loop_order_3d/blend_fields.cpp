#include <cstddef>

// Element-wise update of a planes x rows x cols array stored with the last index fastest;
// the loops run j-k-i, so the innermost loop strides.
// perfalign: size(a)=planes*rows*cols, size(b)=planes*rows*cols, size(out)=planes*rows*cols, noalias
void blend_fields(const double *a, const double *b, double *out, long planes, long rows, long cols) {
    for (long j = 0; j < rows; j++)
        for (long k = 0; k < cols; k++)
            for (long i = 0; i < planes; i++)
                out[(i * rows + j) * cols + k] = a[(i * rows + j) * cols + k] - 0.5 * b[(i * rows + j) * cols + k];
}
