#include <math.h>

/* Scale each row of an n-by-n matrix to unit Euclidean length.
 * The row's norm is recomputed for every element: O(n^3) work for O(n^2) data.
 * perfalign: size(a)=n*n, size(out)=n*n
 */
void normalize_rows(const double *a, double *out, int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int k = 0; k < n; k++)
                s += a[i * n + k] * a[i * n + k];
            out[i * n + j] = s > 0.0 ? a[i * n + j] / sqrt(s) : 0.0;
        }
}
