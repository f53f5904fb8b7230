#include <stddef.h>

/* A 5-point stencil on an ny x nx grid with bounds tests for every neighbour.
 * perfalign: size(u)=ny*nx, size(v)=ny*nx, noalias
 */
void five_point(const double *u, double *v, long ny, long nx) {
    for (long i = 0; i < ny; i++)
        for (long j = 0; j < nx; j++) {
            double s = 0.0;
            if (i > 0) s += u[(i - 1) * nx + j];
            if (j > 0) s += u[i * nx + j - 1];
            if (j + 1 < nx) s += u[i * nx + j + 1];
            if (i + 1 < ny) s += u[(i + 1) * nx + j];
            v[i * nx + j] = s - 0.25 * u[i * nx + j];
        }
}
