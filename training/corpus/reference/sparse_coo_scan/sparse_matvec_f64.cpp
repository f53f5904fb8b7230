#include <cstddef>

void sparse_matvec_f64(const long *row, const long *col, const double *a, const double *x, double *y, long n) {
    const long nnz = 4 * n;
    for (long i = 0; i < n; i++)
        y[i] = 0.0;
    for (long k = 0; k < nnz; k++)
        y[row[k]] += a[k] * x[col[k]];
}
