#include <cstddef>

// For a sparse n x n matrix given as nnz (row, column, value) triples in any order,
// y = A x; every row scans all the triples.
// perfalign: size(row)=nnz, size(col)=nnz, size(a)=nnz, range(row)=0..n-1, range(col)=0..n-1, size(x)=n, size(y)=n
void sparse_matvec_f64(const long *row, const long *col, const double *a, long nnz, const double *x, double *y, long n) {
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long k = 0; k < nnz; k++)
            if (row[k] == i)
                s += a[k] * x[col[k]];
        y[i] = s;
    }
}
