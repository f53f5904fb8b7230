#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Sum of |a[i] - a[j]| over all pairs i < j: O(n^2). */
long long gini_numerator_i16(const short *x, long n) {
    long long s = 0;
    for (long i = 0; i < n; i++)
        for (long j = i + 1; j < n; j++) {
                long long d = (long long)x[i] - (long long)x[j];
                s += d < 0 ? -d : d;
        }
    return s;
}
