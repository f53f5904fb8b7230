#include <cstddef>
#include <vector>
#include <unordered_map>

// Number of distinct values, by comparing elements pairwise: O(n^2).
long distinct_values_u32(const std::vector<unsigned> &keys) {
    const std::size_t n = keys.size();
    long c = 0;
    for (std::size_t i = 0; i < n; i++) {
        int seen = 0;
        for (std::size_t j = 0; j < i; j++)
            if (keys[j] == keys[i]) {
                seen = 1;
                break;
            }
        if (!seen)
            c++;
    }
    return c;
}
