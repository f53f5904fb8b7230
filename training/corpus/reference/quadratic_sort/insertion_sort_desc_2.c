#include <stddef.h>
#include <stdlib.h>

static int cmp_unsigned(const void *p, const void *q) {
    const unsigned x = *(const unsigned *)p, y = *(const unsigned *)q;
    return (x < y) - (x > y);
}

void insertion_sort_desc_2(unsigned *keys, size_t count) {
    qsort(keys, count, sizeof(unsigned), cmp_unsigned);
}
