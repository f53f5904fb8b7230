#include <stddef.h>
#include <stdlib.h>

long mode_count_i32(const int *codes, long n) {
    long *seen_ = (long *)calloc(100, sizeof(long));
    if (!seen_)
        return -1;
    for (long i = 0; i < n; i++)
        seen_[codes[i]]++;
    long c = 0;
    for (int k = 0; k < 100; k++)
        if (seen_[k] > c) c = seen_[k];
    free(seen_);
    return c;
}
