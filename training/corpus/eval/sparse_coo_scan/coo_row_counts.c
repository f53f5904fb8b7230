#include <stddef.h>

/* For a sparse n x n matrix given as 4 * n (row, column, value) triples in any order,
 * the number of stored entries in each row; every row scans all the triples.
 * perfalign: size(ri)=4*n, size(ci)=4*n, size(val)=4*n, range(ri)=0..n-1, range(ci)=0..n-1, size(cnt)=n, noalias
 */
void coo_row_counts(const long *ri, const long *ci, const float *val, long *cnt, int n) {
    const int nnz = 4 * n;
    for (int i = 0; i < n; i++) {
        long s = 0;
        for (int k = 0; k < nnz; k++)
            if (ri[k] == i)
                s++;
        cnt[i] = s;
    }
}
