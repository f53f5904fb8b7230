#include <stddef.h>

void integrate_volume_f64(double *u, const double *v, double dt, int planes, int rows, int cols) {
    for (int i = 0; i < planes; i++)
        for (int j = 0; j < rows; j++)
            for (int k = 0; k < cols; k++)
                u[(i * rows + j) * cols + k] += dt * v[(i * rows + j) * cols + k];
}
