#include <cstddef>
#include <vector>
#include <algorithm>

// Sum of |a[i] - a[j]| over all pairs i < j: O(n^2).
long long total_pair_gap_2(const std::vector<short> &x) {
    const std::size_t n = x.size();
    long long s = 0;
    for (std::size_t i = 0; i < n; i++)
        for (std::size_t j = i + 1; j < n; j++) {
                long long d = (long long)x[i] - (long long)x[j];
                s += d < 0 ? -d : d;
        }
    return s;
}
