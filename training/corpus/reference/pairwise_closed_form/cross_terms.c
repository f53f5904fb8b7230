#include <stddef.h>

long long cross_terms(const long *v, long n) {
    long long s1 = 0, s2 = 0;
    for (long i = 0; i < n; i++) {
        const long long e = v[i];
        s1 += e;
        s2 += e * e;
    }
    return (s1 * s1 - s2) / 2;
}
