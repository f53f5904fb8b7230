#include <stddef.h>

void shift_grid_2(float *g, const float *bias, int planes, int rows, int cols) {
    for (int i = 0; i < planes; i++)
        for (int j = 0; j < rows; j++)
            for (int k = 0; k < cols; k++)
                g[(i * rows + j) * cols + k] += bias[k];
}
