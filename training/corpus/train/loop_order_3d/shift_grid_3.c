#include <stddef.h>

/* Element-wise update of a nx x ny x nz array stored with the last index fastest;
 * the loops run i-k-j, so the innermost loop strides.
 * perfalign: size(g)=nx*ny*nz, size(bias)=nz, noalias
 */
void shift_grid_3(double *g, const double *bias, size_t nx, size_t ny, size_t nz) {
    for (size_t i = 0; i < nx; i++)
        for (size_t k = 0; k < nz; k++)
            for (size_t j = 0; j < ny; j++)
                g[(i * ny + j) * nz + k] += bias[k];
}
