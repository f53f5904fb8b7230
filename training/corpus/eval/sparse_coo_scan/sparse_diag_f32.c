#include <stddef.h>

/* For a sparse n x n matrix given as 3 * n (row, column, value) triples in any order,
 * the diagonal (duplicates summed); every row scans all the triples.
 * perfalign: size(row)=3*n, size(col)=3*n, size(a)=3*n, range(row)=0..n-1, range(col)=0..n-1, size(d)=n, noalias
 */
void sparse_diag_f32(const long *row, const long *col, const float *a, float *d, long n) {
    const long nnz = 3 * n;
    for (long i = 0; i < n; i++) {
        float s = 0.0f;
        for (long k = 0; k < nnz; k++)
            if (row[k] == i && col[k] == i)
                s += a[k];
        d[i] = s;
    }
}
