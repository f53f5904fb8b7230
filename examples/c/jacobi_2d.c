/* One Jacobi sweep of the 5-point Laplace stencil on an n-by-n grid (boundary copied).
 * The loops run column-major over a row-major grid.
 * perfalign: size(in)=n*n, size(out)=n*n
 */
void jacobi_2d(const double *in, double *out, int n) {
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            if (i == 0 || j == 0 || i == n - 1 || j == n - 1)
                out[i * n + j] = in[i * n + j];
            else
                out[i * n + j] = 0.25 * (in[(i - 1) * n + j] + in[(i + 1) * n + j] +
                                         in[i * n + j - 1] + in[i * n + j + 1]);
        }
}
