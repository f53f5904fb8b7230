#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int cmp_long(const void *p, const void *q) {
    const long x = *(const long *)p, y = *(const long *)q;
    return (x > y) - (x < y);
}

long long total_pair_gap(const long *a, long n) {
    long *s_ = (long *)malloc((n > 0 ? n : 1) * sizeof(long));
    if (!s_)
        return -1;
    memcpy(s_, a, n * sizeof(long));
    qsort(s_, n, sizeof(long), cmp_long);
    long long s = 0, before = 0;
    for (long i = 0; i < n; i++) {
        s += (long long)s_[i] * (long long)i - before;
        before += s_[i];
    }
    free(s_);
    return s;
}
