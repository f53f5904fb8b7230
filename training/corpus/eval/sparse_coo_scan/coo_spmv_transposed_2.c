#include <stddef.h>

/* For a sparse n x n matrix given as 2 * n (row, column, value) triples in any order,
 * y = A^T x; every row scans all the triples.
 * perfalign: size(ri)=2*n, size(ci)=2*n, size(val)=2*n, range(ri)=0..n-1, range(ci)=0..n-1, size(x)=n, size(y)=n, noalias
 */
void coo_spmv_transposed_2(const int *ri, const int *ci, const double *val, const double *x, double *y, long n) {
    const long nnz = 2 * n;
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long k = 0; k < nnz; k++)
            if (ci[k] == i)
                s += val[k] * x[ri[k]];
        y[i] = s;
    }
}
