#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Sum of |a[i] - a[j]| over all pairs i < j: O(n^2). */
long long sum_abs_pair_diffs(const long *v, int n) {
    long long s = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
                long long d = (long long)v[i] - (long long)v[j];
                s += d < 0 ? -d : d;
        }
    return s;
}
