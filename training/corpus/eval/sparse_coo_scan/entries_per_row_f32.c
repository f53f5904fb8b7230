#include <stddef.h>

/* For a sparse n x n matrix given as 2 * n (row, column, value) triples in any order,
 * the number of stored entries in each row; every row scans all the triples.
 * perfalign: size(ri)=2*n, size(ci)=2*n, size(val)=2*n, range(ri)=0..n-1, range(ci)=0..n-1, size(cnt)=n, noalias
 */
void entries_per_row_f32(const int *ri, const int *ci, const float *val, long *cnt, int n) {
    const int nnz = 2 * n;
    for (int i = 0; i < n; i++) {
        long s = 0;
        for (int k = 0; k < nnz; k++)
            if (ri[k] == i)
                s++;
        cnt[i] = s;
    }
}
