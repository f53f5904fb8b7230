#include <stddef.h>
#include <stdlib.h>

static int cmp_unsigned(const void *p, const void *q) {
    const unsigned x = *(const unsigned *)p, y = *(const unsigned *)q;
    return (x < y) - (x > y);
}

void sort_descending_u32(unsigned *data, int len) {
    qsort(data, len, sizeof(unsigned), cmp_unsigned);
}
