#include <cstddef>

void advance_field_i32(int *u, const int *v, int dt, std::size_t planes, std::size_t rows, std::size_t cols) {
    for (std::size_t i = 0; i < planes; i++)
        for (std::size_t j = 0; j < rows; j++)
            for (std::size_t k = 0; k < cols; k++)
                u[(i * rows + j) * cols + k] += dt * v[(i * rows + j) * cols + k];
}
