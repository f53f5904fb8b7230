#include <stddef.h>
#include <stdlib.h>

long max_frequency_u16(const unsigned short *v, size_t n) {
    long *seen_ = (long *)calloc(1024, sizeof(long));
    if (!seen_)
        return -1;
    for (size_t i = 0; i < n; i++)
        seen_[v[i]]++;
    long c = 0;
    for (int k = 0; k < 1024; k++)
        if (seen_[k] > c) c = seen_[k];
    free(seen_);
    return c;
}
