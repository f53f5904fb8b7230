#include <cstddef>

// Element-wise update of a planes x rows x cols array stored with the last index fastest;
// the loops run k-i-j, so the innermost loop strides.
// perfalign: size(a)=planes*rows*cols, size(b)=planes*rows*cols, size(out)=planes*rows*cols, noalias
void mix_volumes(const float *a, const float *b, float *out, std::size_t planes, std::size_t rows, std::size_t cols) {
    for (std::size_t k = 0; k < cols; k++)
        for (std::size_t i = 0; i < planes; i++)
            for (std::size_t j = 0; j < rows; j++)
                out[(i * rows + j) * cols + k] = a[(i * rows + j) * cols + k] - 0.5f * b[(i * rows + j) * cols + k];
}
