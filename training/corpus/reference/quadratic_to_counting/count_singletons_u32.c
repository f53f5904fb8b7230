#include <stddef.h>
#include <stdlib.h>

long count_singletons_u32(const unsigned *ids, long count) {
    long *seen_ = (long *)calloc(4096, sizeof(long));
    if (!seen_)
        return -1;
    for (long i = 0; i < count; i++)
        seen_[ids[i]]++;
    long c = 0;
    for (int k = 0; k < 4096; k++)
        if (seen_[k] == 1) c++;
    free(seen_);
    return c;
}
