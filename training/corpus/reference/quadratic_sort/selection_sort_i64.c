#include <stddef.h>
#include <stdlib.h>

static int cmp_long_long(const void *p, const void *q) {
    const long long x = *(const long long *)p, y = *(const long long *)q;
    return (x > y) - (x < y);
}

void selection_sort_i64(long long *keys, size_t count) {
    qsort(keys, count, sizeof(long long), cmp_long_long);
}
