#include <cstddef>

void mix_volumes_2(const int *a, const int *b, int *out, int planes, int rows, int cols) {
    for (int i = 0; i < planes; i++)
        for (int j = 0; j < rows; j++)
            for (int k = 0; k < cols; k++)
                out[(i * rows + j) * cols + k] = a[(i * rows + j) * cols + k] - 3 * b[(i * rows + j) * cols + k];
}
