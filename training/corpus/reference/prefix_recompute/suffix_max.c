#include <stddef.h>

void suffix_max(const long *x, long *acc, size_t n) {
    if (n == 0)
        return;
    long s = x[n - 1];
    for (size_t i = n; i-- > 0;) {
        if (x[i] > s) s = x[i];
        acc[i] = s;
    }
}
