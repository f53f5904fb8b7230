#include <stddef.h>

void coo_spmv_transposed_2(const int *ri, const int *ci, const double *val, const double *x, double *y, long n) {
    const long nnz = 2 * n;
    for (long i = 0; i < n; i++)
        y[i] = 0.0;
    for (long k = 0; k < nnz; k++)
        y[ci[k]] += val[k] * x[ri[k]];
}
