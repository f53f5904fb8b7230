#include <stddef.h>

void sparse_diag_f32(const long *row, const long *col, const float *a, float *d, long n) {
    const long nnz = 3 * n;
    for (long i = 0; i < n; i++)
        d[i] = 0.0f;
    for (long k = 0; k < nnz; k++)
        if (row[k] == col[k])
            d[row[k]] += a[k];
}
