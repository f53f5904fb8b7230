#include <stddef.h>

void sparse_matvec_t(const int *row, const int *col, const float *a, long nnz, const float *x, float *y, long n) {
    for (long i = 0; i < n; i++)
        y[i] = 0.0f;
    for (long k = 0; k < nnz; k++)
        y[col[k]] += a[k] * x[row[k]];
}
