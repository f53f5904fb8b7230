#include <stddef.h>

/* Sum of (a[i] - a[j])^2 over all pairs i < j: O(n^2). */
long long pairwise_spread_i64(const long *vals, long n) {
    long long s = 0;
    for (long i = 0; i < n; i++)
        for (long j = i + 1; j < n; j++) {
                const long long d = (long long)vals[i] - (long long)vals[j];
                s += d * d;
        }
    return s;
}
