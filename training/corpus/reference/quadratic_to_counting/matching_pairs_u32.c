#include <stddef.h>
#include <stdlib.h>

long matching_pairs_u32(const unsigned *codes, size_t n) {
    long *seen_ = (long *)calloc(4096, sizeof(long));
    if (!seen_)
        return -1;
    for (size_t i = 0; i < n; i++)
        seen_[codes[i]]++;
    long c = 0;
    for (int k = 0; k < 4096; k++)
        c += seen_[k] * (seen_[k] - 1) / 2;
    free(seen_);
    return c;
}
