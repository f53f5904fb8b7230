#include <stddef.h>

/* Sum of a[i] * a[j] over all pairs i < j: O(n^2). */
long long cross_terms(const long *v, long n) {
    long long s = 0;
    for (long i = 0; i < n; i++)
        for (long j = i + 1; j < n; j++) {
                s += (long long)v[i] * v[j];
        }
    return s;
}
