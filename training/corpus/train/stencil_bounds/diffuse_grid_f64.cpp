#include <cstddef>

// A 5-point stencil on an ny x nx grid with bounds tests for every neighbour.
// perfalign: size(u)=ny*nx, size(v)=ny*nx, noalias
void diffuse_grid_f64(const double *u, double *v, int ny, int nx) {
    for (int i = 0; i < ny; i++)
        for (int j = 0; j < nx; j++) {
            double s = 0.0;
            if (i > 0) s += u[(i - 1) * nx + j];
            if (j > 0) s += u[i * nx + j - 1];
            if (j + 1 < nx) s += u[i * nx + j + 1];
            if (i + 1 < ny) s += u[(i + 1) * nx + j];
            v[i * nx + j] = s - 1.0 * u[i * nx + j];
        }
}
