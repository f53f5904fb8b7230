#include <cstddef>

void diffuse_grid_f64(const double *u, double *v, int ny, int nx) {
    for (int i = 0; i < ny; i++) {
        if (i == 0 || i + 1 == ny || nx < 3) {
            for (int j = 0; j < nx; j++) {
                double s = 0.0;
                if (i > 0) s += u[(i - 1) * nx + j];
                if (j > 0) s += u[i * nx + j - 1];
                if (j + 1 < nx) s += u[i * nx + j + 1];
                if (i + 1 < ny) s += u[(i + 1) * nx + j];
                v[i * nx + j] = s - 1.0 * u[i * nx + j];
            }
            continue;
        }
        for (int j = 0; j < nx; j += nx - 1) {
                double s = 0.0;
                if (i > 0) s += u[(i - 1) * nx + j];
                if (j > 0) s += u[i * nx + j - 1];
                if (j + 1 < nx) s += u[i * nx + j + 1];
                if (i + 1 < ny) s += u[(i + 1) * nx + j];
                v[i * nx + j] = s - 1.0 * u[i * nx + j];
        }
        for (int j = 1; j + 1 < nx; j++)
            v[i * nx + j] = 0.0 + u[(i - 1) * nx + j] + u[i * nx + j - 1] + u[i * nx + j + 1] + u[(i + 1) * nx + j] - 1.0 * u[i * nx + j];
    }
}
