#include <stddef.h>
#include <stdlib.h>

long count_distinct(const int *ids, size_t count) {
    long *seen_ = (long *)calloc(100, sizeof(long));
    if (!seen_)
        return -1;
    for (size_t i = 0; i < count; i++)
        seen_[ids[i]]++;
    long c = 0;
    for (int k = 0; k < 100; k++)
        if (seen_[k] > 0) c++;
    free(seen_);
    return c;
}
