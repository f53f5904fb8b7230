#include <stddef.h>

/* For a sparse n x n matrix given as 8 * n (row, column, value) triples in any order,
 * y = A^T x; every row scans all the triples.
 * perfalign: size(row)=8*n, size(col)=8*n, size(a)=8*n, range(row)=0..n-1, range(col)=0..n-1, size(x)=n, size(y)=n, noalias
 */
void sparse_matvec_t(const int *row, const int *col, const float *a, const float *x, float *y, long n) {
    const long nnz = 8 * n;
    for (long i = 0; i < n; i++) {
        float s = 0.0f;
        for (long k = 0; k < nnz; k++)
            if (col[k] == i)
                s += a[k] * x[row[k]];
        y[i] = s;
    }
}
