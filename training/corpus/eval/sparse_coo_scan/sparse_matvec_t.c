#include <stddef.h>

/* For a sparse n x n matrix given as nnz (row, column, value) triples in any order,
 * y = A^T x; every row scans all the triples.
 * perfalign: size(row)=nnz, size(col)=nnz, size(a)=nnz, range(row)=0..n-1, range(col)=0..n-1, size(x)=n, size(y)=n
 */
void sparse_matvec_t(const int *row, const int *col, const float *a, long nnz, const float *x, float *y, long n) {
    for (long i = 0; i < n; i++) {
        float s = 0.0f;
        for (long k = 0; k < nnz; k++)
            if (col[k] == i)
                s += a[k] * x[row[k]];
        y[i] = s;
    }
}
