#include <stddef.h>

/* Sum of (a[i] - a[j])^2 over all pairs i < j: O(n^2). */
long long pair_distance_energy_i64(const long *v, int n) {
    long long s = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
                const long long d = (long long)v[i] - (long long)v[j];
                s += d * d;
        }
    return s;
}
