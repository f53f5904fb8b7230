#include <cstddef>
#include <unordered_map>

// Number of distinct values, by comparing elements pairwise: O(n^2).
// perfalign: size(ids)=count
long count_distinct_u32(const unsigned *ids, std::size_t count) {
    long c = 0;
    for (std::size_t i = 0; i < count; i++) {
        int seen = 0;
        for (std::size_t j = 0; j < i; j++)
            if (ids[j] == ids[i]) {
                seen = 1;
                break;
            }
        if (!seen)
            c++;
    }
    return c;
}
