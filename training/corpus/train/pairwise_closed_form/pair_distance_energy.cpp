#include <cstddef>
#include <vector>

// Sum of (a[i] - a[j])^2 over all pairs i < j: O(n^2).
long long pair_distance_energy(const std::vector<int> &x) {
    const std::size_t n = x.size();
    long long s = 0;
    for (std::size_t i = 0; i < n; i++)
        for (std::size_t j = i + 1; j < n; j++) {
                const long long d = (long long)x[i] - (long long)x[j];
                s += d * d;
        }
    return s;
}
