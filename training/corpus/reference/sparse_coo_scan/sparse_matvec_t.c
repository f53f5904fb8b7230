#include <stddef.h>

void sparse_matvec_t(const int *row, const int *col, const float *a, const float *x, float *y, long n) {
    const long nnz = 8 * n;
    for (long i = 0; i < n; i++)
        y[i] = 0.0f;
    for (long k = 0; k < nnz; k++)
        y[col[k]] += a[k] * x[row[k]];
}
