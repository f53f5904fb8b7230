#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int cmp_short(const void *p, const void *q) {
    const short x = *(const short *)p, y = *(const short *)q;
    return (x > y) - (x < y);
}

long long gini_numerator_i16(const short *x, long n) {
    short *s_ = (short *)malloc((n > 0 ? n : 1) * sizeof(short));
    if (!s_)
        return -1;
    memcpy(s_, x, n * sizeof(short));
    qsort(s_, n, sizeof(short), cmp_short);
    long long s = 0, before = 0;
    for (long i = 0; i < n; i++) {
        s += (long long)s_[i] * (long long)i - before;
        before += s_[i];
    }
    free(s_);
    return s;
}
