#include <cstddef>

// For a sparse n x n matrix given as 4 * n (row, column, value) triples in any order,
// y = A x; every row scans all the triples.
// perfalign: size(row)=4*n, size(col)=4*n, size(a)=4*n, range(row)=0..n-1, range(col)=0..n-1, size(x)=n, size(y)=n, noalias
void sparse_matvec_f64(const long *row, const long *col, const double *a, const double *x, double *y, long n) {
    const long nnz = 4 * n;
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long k = 0; k < nnz; k++)
            if (row[k] == i)
                s += a[k] * x[col[k]];
        y[i] = s;
    }
}
