#include <stddef.h>

/* For a sparse n x n matrix given as nnz (row, column, value) triples in any order,
 * the number of stored entries in each row; every row scans all the triples.
 * perfalign: size(row)=nnz, size(col)=nnz, size(a)=nnz, range(row)=0..n-1, range(col)=0..n-1, size(cnt)=n
 */
void coo_row_counts_f64(const long *row, const long *col, const double *a, long nnz, long *cnt, long n) {
    for (long i = 0; i < n; i++) {
        long s = 0;
        for (long k = 0; k < nnz; k++)
            if (row[k] == i)
                s++;
        cnt[i] = s;
    }
}
