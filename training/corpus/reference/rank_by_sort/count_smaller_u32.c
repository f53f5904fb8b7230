#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int cmp_unsigned(const void *p, const void *q) {
    const unsigned a = *(const unsigned *)p, b = *(const unsigned *)q;
    return (a > b) - (a < b);
}

void count_smaller_u32(const unsigned *x, long *rank, size_t n) {
    unsigned *s_ = (unsigned *)malloc((n > 0 ? n : 1) * sizeof(unsigned));
    if (!s_)
        return;
    memcpy(s_, x, n * sizeof(unsigned));
    qsort(s_, n, sizeof(unsigned), cmp_unsigned);
    for (size_t i = 0; i < n; i++) {
        long lo = 0, hi = (long)n;
        while (lo < hi) {
            long mid = lo + (hi - lo) / 2;
            if (s_[mid] < x[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        rank[i] = lo;
    }
    free(s_);
}
