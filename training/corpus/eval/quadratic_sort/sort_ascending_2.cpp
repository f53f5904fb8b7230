#include <cstddef>
#include <vector>
#include <algorithm>

// Sort into ascending order with selection sort: O(n^2).
// perfalign: noalias
void sort_ascending_2(std::vector<long long> &keys) {
    const std::size_t count = keys.size();
    for (std::size_t i = 0; i < count; i++) {
        std::size_t best = i;
        for (std::size_t j = i + 1; j < count; j++)
            if (keys[j] < keys[best])
                best = j;
        long long tmp = keys[i];
        keys[i] = keys[best];
        keys[best] = tmp;
    }
}
