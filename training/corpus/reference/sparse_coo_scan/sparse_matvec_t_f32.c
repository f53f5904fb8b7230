#include <stddef.h>

void sparse_matvec_t_f32(const long *ri, const long *ci, const float *val, const float *x, float *y, long n) {
    const long nnz = 2 * n;
    for (long i = 0; i < n; i++)
        y[i] = 0.0f;
    for (long k = 0; k < nnz; k++)
        y[ci[k]] += val[k] * x[ri[k]];
}
