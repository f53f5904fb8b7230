#include <cstddef>

void coo_spmv_transposed(const int *ri, const int *ci, const float *val, const float *x, float *y, int n) {
    const int nnz = 8 * n;
    for (int i = 0; i < n; i++)
        y[i] = 0.0f;
    for (int k = 0; k < nnz; k++)
        y[ci[k]] += val[k] * x[ri[k]];
}
