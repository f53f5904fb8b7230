#include <stddef.h>

void entries_per_row_f32(const int *ri, const int *ci, const float *val, long *cnt, int n) {
    const int nnz = 2 * n;
    for (int i = 0; i < n; i++)
        cnt[i] = 0;
    for (int k = 0; k < nnz; k++)
        cnt[ri[k]]++;
}
