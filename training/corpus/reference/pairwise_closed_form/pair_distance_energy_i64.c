#include <stddef.h>

long long pair_distance_energy_i64(const long *v, int n) {
    long long s1 = 0, s2 = 0;
    for (int i = 0; i < n; i++) {
        const long long e = v[i];
        s1 += e;
        s2 += e * e;
    }
    return (long long)n * s2 - s1 * s1;
}
