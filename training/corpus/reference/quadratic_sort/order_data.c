#include <stddef.h>
#include <stdlib.h>

static int cmp_unsigned(const void *p, const void *q) {
    const unsigned x = *(const unsigned *)p, y = *(const unsigned *)q;
    return (x < y) - (x > y);
}

void order_data(unsigned *data, size_t len) {
    qsort(data, len, sizeof(unsigned), cmp_unsigned);
}
