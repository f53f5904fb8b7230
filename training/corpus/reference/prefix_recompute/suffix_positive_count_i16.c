#include <stddef.h>

void suffix_positive_count_i16(const short *a, long *p, size_t n) {
    long s = 0;
    for (size_t i = n; i-- > 0;) {
        if (a[i] > 0) s++;
        p[i] = s;
    }
}
