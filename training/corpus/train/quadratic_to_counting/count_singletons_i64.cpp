#include <cstddef>
#include <vector>
#include <unordered_map>

// Number of values that occur exactly once, by comparing elements pairwise: O(n^2).
long count_singletons_i64(const std::vector<long> &v) {
    const std::size_t n = v.size();
    long c = 0;
    for (std::size_t i = 0; i < n; i++) {
        long k = 0;
        for (std::size_t j = 0; j < n; j++)
            if (v[j] == v[i])
                k++;
        if (k == 1)
            c++;
    }
    return c;
}
