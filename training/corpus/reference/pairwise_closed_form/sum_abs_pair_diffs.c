#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int cmp_long(const void *p, const void *q) {
    const long x = *(const long *)p, y = *(const long *)q;
    return (x > y) - (x < y);
}

long long sum_abs_pair_diffs(const long *v, int n) {
    long *s_ = (long *)malloc((n > 0 ? n : 1) * sizeof(long));
    if (!s_)
        return -1;
    memcpy(s_, v, n * sizeof(long));
    qsort(s_, n, sizeof(long), cmp_long);
    long long s = 0, before = 0;
    for (int i = 0; i < n; i++) {
        s += (long long)s_[i] * (long long)i - before;
        before += s_[i];
    }
    free(s_);
    return s;
}
