#include <stddef.h>

void bias_grid(float *a, const float *rb, const float *cb, int rows, int cols) {
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            a[i * cols + j] = a[i * cols + j] * cb[j] + rb[i];
}
