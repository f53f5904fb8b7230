#include <stddef.h>

long long sum_pair_products_2(const long *v, int n) {
    long long s1 = 0, s2 = 0;
    for (int i = 0; i < n; i++) {
        const long long e = v[i];
        s1 += e;
        s2 += e * e;
    }
    return (s1 * s1 - s2) / 2;
}
