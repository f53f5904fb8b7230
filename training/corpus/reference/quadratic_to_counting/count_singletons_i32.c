#include <stddef.h>
#include <stdlib.h>

long count_singletons_i32(const int *codes, int n) {
    long *seen_ = (long *)calloc(100, sizeof(long));
    if (!seen_)
        return -1;
    for (int i = 0; i < n; i++)
        seen_[codes[i]]++;
    long c = 0;
    for (int k = 0; k < 100; k++)
        if (seen_[k] == 1) c++;
    free(seen_);
    return c;
}
