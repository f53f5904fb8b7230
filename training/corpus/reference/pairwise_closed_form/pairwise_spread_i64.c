#include <stddef.h>

long long pairwise_spread_i64(const long *vals, long n) {
    long long s1 = 0, s2 = 0;
    for (long i = 0; i < n; i++) {
        const long long e = vals[i];
        s1 += e;
        s2 += e * e;
    }
    return (long long)n * s2 - s1 * s1;
}
