// One explicit step of the 7-point heat stencil on an n*n*n grid (index (i*n + j)*n + k),
// looping with the slowest index innermost. Boundary cells are copied.
// perfalign: size(u)=n*n*n, size(v)=n*n*n
void heat_3d(const double *u, double *v, int n) {
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                int c = (i * n + j) * n + k;
                if (i == 0 || j == 0 || k == 0 || i == n - 1 || j == n - 1 || k == n - 1) {
                    v[c] = u[c];
                    continue;
                }
                v[c] = u[c] + 0.1 * (u[c - n * n] + u[c + n * n] + u[c - n] + u[c + n] + u[c - 1] + u[c + 1] - 6.0 * u[c]);
            }
}
