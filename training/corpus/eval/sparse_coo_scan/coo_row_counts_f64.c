#include <stddef.h>

/* For a sparse n x n matrix given as 3 * n (row, column, value) triples in any order,
 * the number of stored entries in each row; every row scans all the triples.
 * perfalign: size(row)=3*n, size(col)=3*n, size(a)=3*n, range(row)=0..n-1, range(col)=0..n-1, size(cnt)=n, noalias
 */
void coo_row_counts_f64(const long *row, const long *col, const double *a, long *cnt, long n) {
    const long nnz = 3 * n;
    for (long i = 0; i < n; i++) {
        long s = 0;
        for (long k = 0; k < nnz; k++)
            if (row[k] == i)
                s++;
        cnt[i] = s;
    }
}
