#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int cmp_long(const void *p, const void *q) {
    const long a = *(const long *)p, b = *(const long *)q;
    return (a > b) - (a < b);
}

void beaten_by_i64_2(const long *a, long *pos, int len) {
    long *s_ = (long *)malloc((len > 0 ? len : 1) * sizeof(long));
    if (!s_)
        return;
    memcpy(s_, a, len * sizeof(long));
    qsort(s_, len, sizeof(long), cmp_long);
    for (int i = 0; i < len; i++) {
        long lo = 0, hi = (long)len;
        while (lo < hi) {
            long mid = lo + (hi - lo) / 2;
            if (s_[mid] <= a[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        pos[i] = ((long)(len) - lo);
    }
    free(s_);
}
