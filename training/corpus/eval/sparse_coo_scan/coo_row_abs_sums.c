#include <stddef.h>
#include <math.h>

/* For a sparse n x n matrix given as 4 * n (row, column, value) triples in any order,
 * the sum of magnitudes in each row; every row scans all the triples.
 * perfalign: size(ri)=4*n, size(ci)=4*n, size(val)=4*n, range(ri)=0..n-1, range(ci)=0..n-1, size(out)=n, noalias
 */
void coo_row_abs_sums(const long *ri, const long *ci, const double *val, double *out, long n) {
    const long nnz = 4 * n;
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long k = 0; k < nnz; k++)
            if (ri[k] == i)
                s += fabs(val[k]);
        out[i] = s;
    }
}
