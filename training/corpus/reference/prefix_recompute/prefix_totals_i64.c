#include <stddef.h>

void prefix_totals_i64(const long *a, long *p, size_t n) {
    long s = 0;
    for (size_t i = 0; i < n; i++) {
        s += a[i];
        p[i] = s;
    }
}
