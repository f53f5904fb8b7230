#include <stddef.h>
#include <stdlib.h>

static int cmp_int(const void *p, const void *q) {
    const int x = *(const int *)p, y = *(const int *)q;
    return (x > y) - (x < y);
}

void sort_ascending_i32(int *v, size_t n) {
    qsort(v, n, sizeof(int), cmp_int);
}
