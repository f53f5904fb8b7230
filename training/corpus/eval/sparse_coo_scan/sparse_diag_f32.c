#include <stddef.h>

/* For a sparse n x n matrix given as nnz (row, column, value) triples in any order,
 * the diagonal (duplicates summed); every row scans all the triples.
 * perfalign: size(row)=nnz, size(col)=nnz, size(a)=nnz, range(row)=0..n-1, range(col)=0..n-1, size(d)=n
 */
void sparse_diag_f32(const long *row, const long *col, const float *a, long nnz, float *d, long n) {
    for (long i = 0; i < n; i++) {
        float s = 0.0f;
        for (long k = 0; k < nnz; k++)
            if (row[k] == i && col[k] == i)
                s += a[k];
        d[i] = s;
    }
}
