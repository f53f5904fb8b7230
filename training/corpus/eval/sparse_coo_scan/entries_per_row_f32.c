#include <stddef.h>

/* For a sparse n x n matrix given as nnz (row, column, value) triples in any order,
 * the number of stored entries in each row; every row scans all the triples.
 * perfalign: size(ri)=nnz, size(ci)=nnz, size(val)=nnz, range(ri)=0..n-1, range(ci)=0..n-1, size(cnt)=n
 */
void entries_per_row_f32(const int *ri, const int *ci, const float *val, int nnz, long *cnt, int n) {
    for (int i = 0; i < n; i++) {
        long s = 0;
        for (int k = 0; k < nnz; k++)
            if (ri[k] == i)
                s++;
        cnt[i] = s;
    }
}
