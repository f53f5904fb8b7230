#include <cstddef>
#include <vector>

long long pair_distance_energy(const std::vector<int> &x) {
    const std::size_t n = x.size();
    long long s1 = 0, s2 = 0;
    for (std::size_t i = 0; i < n; i++) {
        const long long e = x[i];
        s1 += e;
        s2 += e * e;
    }
    return (long long)n * s2 - s1 * s1;
}
