#include <stddef.h>
#include <math.h>

void sparse_row_norms1(const int *ri, const int *ci, const float *val, float *out, long n) {
    const long nnz = 8 * n;
    for (long i = 0; i < n; i++)
        out[i] = 0.0f;
    for (long k = 0; k < nnz; k++)
        out[ri[k]] += fabsf(val[k]);
}
