#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int cmp_short(const void *p, const void *q) {
    const short a = *(const short *)p, b = *(const short *)q;
    return (a > b) - (a < b);
}

void rank_strict_i16(const short *a, long *pos, size_t len) {
    short *s_ = (short *)malloc((len > 0 ? len : 1) * sizeof(short));
    if (!s_)
        return;
    memcpy(s_, a, len * sizeof(short));
    qsort(s_, len, sizeof(short), cmp_short);
    for (size_t i = 0; i < len; i++) {
        long lo = 0, hi = (long)len;
        while (lo < hi) {
            long mid = lo + (hi - lo) / 2;
            if (s_[mid] < a[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        pos[i] = lo;
    }
    free(s_);
}
