#include <cstddef>

// Element-wise update of a planes x rows x cols array stored with the last index fastest;
// the loops run i-k-j, so the innermost loop strides.
// perfalign: size(a)=planes*rows*cols, size(b)=planes*rows*cols, size(out)=planes*rows*cols, noalias
void mix_volumes_2(const int *a, const int *b, int *out, int planes, int rows, int cols) {
    for (int i = 0; i < planes; i++)
        for (int k = 0; k < cols; k++)
            for (int j = 0; j < rows; j++)
                out[(i * rows + j) * cols + k] = a[(i * rows + j) * cols + k] - 3 * b[(i * rows + j) * cols + k];
}
