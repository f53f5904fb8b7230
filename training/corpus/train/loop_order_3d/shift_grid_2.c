#include <stddef.h>

/* Element-wise update of a planes x rows x cols array stored with the last index fastest;
 * the loops run j-k-i, so the innermost loop strides.
 * perfalign: size(g)=planes*rows*cols, size(bias)=cols, noalias
 */
void shift_grid_2(float *g, const float *bias, int planes, int rows, int cols) {
    for (int j = 0; j < rows; j++)
        for (int k = 0; k < cols; k++)
            for (int i = 0; i < planes; i++)
                g[(i * rows + j) * cols + k] += bias[k];
}
