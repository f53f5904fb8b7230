#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int cmp_long(const void *p, const void *q) {
    const long a = *(const long *)p, b = *(const long *)q;
    return (a > b) - (a < b);
}

void cumulative_rank(const long *score, long *place, size_t n) {
    long *s_ = (long *)malloc((n > 0 ? n : 1) * sizeof(long));
    if (!s_)
        return;
    memcpy(s_, score, n * sizeof(long));
    qsort(s_, n, sizeof(long), cmp_long);
    for (size_t i = 0; i < n; i++) {
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
