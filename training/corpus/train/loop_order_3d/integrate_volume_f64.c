#include <stddef.h>

/* Element-wise update of a planes x rows x cols array stored with the last index fastest;
 * the loops run k-j-i, so the innermost loop strides.
 * perfalign: size(u)=planes*rows*cols, size(v)=planes*rows*cols, noalias
 */
void integrate_volume_f64(double *u, const double *v, double dt, int planes, int rows, int cols) {
    for (int k = 0; k < cols; k++)
        for (int j = 0; j < rows; j++)
            for (int i = 0; i < planes; i++)
                u[(i * rows + j) * cols + k] += dt * v[(i * rows + j) * cols + k];
}
