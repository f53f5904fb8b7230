#include <cstddef>
#include <algorithm>

// Sort into ascending order with selection sort: O(n^2).
// perfalign: noalias
void selection_sort_asc(long *data, std::size_t len) {
    for (std::size_t i = 0; i < len; i++) {
        std::size_t best = i;
        for (std::size_t j = i + 1; j < len; j++)
            if (data[j] < data[best])
                best = j;
        long tmp = data[i];
        data[i] = data[best];
        data[best] = tmp;
    }
}
