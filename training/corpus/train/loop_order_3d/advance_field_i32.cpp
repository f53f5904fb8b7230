#include <cstddef>

// Element-wise update of a planes x rows x cols array stored with the last index fastest;
// the loops run i-k-j, so the innermost loop strides.
// perfalign: size(u)=planes*rows*cols, size(v)=planes*rows*cols, noalias
void advance_field_i32(int *u, const int *v, int dt, std::size_t planes, std::size_t rows, std::size_t cols) {
    for (std::size_t i = 0; i < planes; i++)
        for (std::size_t k = 0; k < cols; k++)
            for (std::size_t j = 0; j < rows; j++)
                u[(i * rows + j) * cols + k] += dt * v[(i * rows + j) * cols + k];
}
