#include <cstddef>
#include <vector>
#include <algorithm>

// Sum of |a[i] - a[j]| over all pairs i < j: O(n^2).
long long gini_numerator(const std::vector<int> &v) {
    const std::size_t n = v.size();
    long long s = 0;
    for (std::size_t i = 0; i < n; i++)
        for (std::size_t j = i + 1; j < n; j++) {
                long long d = (long long)v[i] - (long long)v[j];
                s += d < 0 ? -d : d;
        }
    return s;
}
