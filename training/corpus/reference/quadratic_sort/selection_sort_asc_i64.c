#include <stddef.h>
#include <stdlib.h>

static int cmp_long(const void *p, const void *q) {
    const long x = *(const long *)p, y = *(const long *)q;
    return (x > y) - (x < y);
}

void selection_sort_asc_i64(long *a, size_t n) {
    qsort(a, n, sizeof(long), cmp_long);
}
