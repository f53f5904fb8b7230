#include <cstddef>
#include <vector>
#include <algorithm>

// Sum of |a[i] - a[j]| over all pairs i < j: O(n^2).
long long sum_abs_pair_diffs_i64(const std::vector<long> &a) {
    const std::size_t n = a.size();
    long long s = 0;
    for (std::size_t i = 0; i < n; i++)
        for (std::size_t j = i + 1; j < n; j++) {
                long long d = (long long)a[i] - (long long)a[j];
                s += d < 0 ? -d : d;
        }
    return s;
}
