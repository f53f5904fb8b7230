#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int cmp_short(const void *p, const void *q) {
    const short a = *(const short *)p, b = *(const short *)q;
    return (a > b) - (a < b);
}

void count_not_larger(const short *score, long *place, long n) {
    short *s_ = (short *)malloc((n > 0 ? n : 1) * sizeof(short));
    if (!s_)
        return;
    memcpy(s_, score, n * sizeof(short));
    qsort(s_, n, sizeof(short), cmp_short);
    for (long i = 0; i < n; i++) {
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
