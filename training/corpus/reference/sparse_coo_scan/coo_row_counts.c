#include <stddef.h>

void coo_row_counts(const long *ri, const long *ci, const float *val, long *cnt, int n) {
    const int nnz = 4 * n;
    for (int i = 0; i < n; i++)
        cnt[i] = 0;
    for (int k = 0; k < nnz; k++)
        cnt[ri[k]]++;
}
