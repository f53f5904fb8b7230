#include <stddef.h>

void shift_grid_3(double *g, const double *bias, size_t nx, size_t ny, size_t nz) {
    for (size_t i = 0; i < nx; i++)
        for (size_t j = 0; j < ny; j++)
            for (size_t k = 0; k < nz; k++)
                g[(i * ny + j) * nz + k] += bias[k];
}
