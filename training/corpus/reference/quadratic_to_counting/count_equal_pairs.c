#include <stddef.h>
#include <stdlib.h>

long count_equal_pairs(const int *codes, int n) {
    long *seen_ = (long *)calloc(100, sizeof(long));
    if (!seen_)
        return -1;
    for (int i = 0; i < n; i++)
        seen_[codes[i]]++;
    long c = 0;
    for (int k = 0; k < 100; k++)
        c += seen_[k] * (seen_[k] - 1) / 2;
    free(seen_);
    return c;
}
