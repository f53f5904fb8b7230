#include <stddef.h>
#include <stdlib.h>

long most_repeats_u16(const unsigned short *codes, long n) {
    long *seen_ = (long *)calloc(1024, sizeof(long));
    if (!seen_)
        return -1;
    for (long i = 0; i < n; i++)
        seen_[codes[i]]++;
    long c = 0;
    for (int k = 0; k < 1024; k++)
        if (seen_[k] > c) c = seen_[k];
    free(seen_);
    return c;
}
