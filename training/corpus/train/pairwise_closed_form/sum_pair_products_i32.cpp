#include <cstddef>
#include <vector>

// Sum of a[i] * a[j] over all pairs i < j: O(n^2).
long long sum_pair_products_i32(const std::vector<int> &vals) {
    const std::size_t n = vals.size();
    long long s = 0;
    for (std::size_t i = 0; i < n; i++)
        for (std::size_t j = i + 1; j < n; j++) {
                s += (long long)vals[i] * vals[j];
        }
    return s;
}
