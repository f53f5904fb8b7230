#include <stddef.h>
#include <math.h>

void coo_row_abs_sums(const long *ri, const long *ci, const double *val, double *out, long n) {
    const long nnz = 4 * n;
    for (long i = 0; i < n; i++)
        out[i] = 0.0;
    for (long k = 0; k < nnz; k++)
        out[ri[k]] += fabs(val[k]);
}
