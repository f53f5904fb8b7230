#include <stddef.h>
#include <stdlib.h>

static int cmp_long(const void *p, const void *q) {
    const long x = *(const long *)p, y = *(const long *)q;
    return (x > y) - (x < y);
}

void sort_ascending(long *a, int n) {
    qsort(a, n, sizeof(long), cmp_long);
}
