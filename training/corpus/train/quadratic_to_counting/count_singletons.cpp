#include <cstddef>
#include <vector>
#include <unordered_map>

// Number of values that occur exactly once, by comparing elements pairwise: O(n^2).
long count_singletons(const std::vector<int> &ids) {
    const std::size_t count = ids.size();
    long c = 0;
    for (std::size_t i = 0; i < count; i++) {
        long k = 0;
        for (std::size_t j = 0; j < count; j++)
            if (ids[j] == ids[i])
                k++;
        if (k == 1)
            c++;
    }
    return c;
}
