#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int cmp_int(const void *p, const void *q) {
    const int a = *(const int *)p, b = *(const int *)q;
    return (a > b) - (a < b);
}

void ranks_below_i32(const int *score, long *place, size_t n) {
    int *s_ = (int *)malloc((n > 0 ? n : 1) * sizeof(int));
    if (!s_)
        return;
    memcpy(s_, score, n * sizeof(int));
    qsort(s_, n, sizeof(int), cmp_int);
    for (size_t i = 0; i < n; i++) {
        long lo = 0, hi = (long)n;
        while (lo < hi) {
            long mid = lo + (hi - lo) / 2;
            if (s_[mid] < score[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        place[i] = lo;
    }
    free(s_);
}
