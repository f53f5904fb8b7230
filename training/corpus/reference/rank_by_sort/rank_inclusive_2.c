#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int cmp_unsigned(const void *p, const void *q) {
    const unsigned a = *(const unsigned *)p, b = *(const unsigned *)q;
    return (a > b) - (a < b);
}

void rank_inclusive_2(const unsigned *score, long *place, int n) {
    unsigned *s_ = (unsigned *)malloc((n > 0 ? n : 1) * sizeof(unsigned));
    if (!s_)
        return;
    memcpy(s_, score, n * sizeof(unsigned));
    qsort(s_, n, sizeof(unsigned), cmp_unsigned);
    for (int i = 0; i < n; i++) {
        long lo = 0, hi = (long)n;
        while (lo < hi) {
            long mid = lo + (hi - lo) / 2;
            if (s_[mid] <= score[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        place[i] = lo;
    }
    free(s_);
}
