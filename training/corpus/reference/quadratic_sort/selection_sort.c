#include <stddef.h>
#include <stdlib.h>

static int cmp_long(const void *p, const void *q) {
    const long x = *(const long *)p, y = *(const long *)q;
    return (x < y) - (x > y);
}

void selection_sort(long *data, size_t len) {
    qsort(data, len, sizeof(long), cmp_long);
}
