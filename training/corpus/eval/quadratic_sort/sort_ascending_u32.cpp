#include <cstddef>
#include <vector>
#include <algorithm>

// Sort into ascending order with bubble sort: O(n^2).
// perfalign: noalias
void sort_ascending_u32(std::vector<unsigned> &v) {
    const std::size_t n = v.size();
    for (std::size_t i = 0; i < n; i++)
        for (std::size_t j = 0; j + 1 < n - i; j++)
            if (v[j] > v[j + 1]) {
                unsigned tmp = v[j];
                v[j] = v[j + 1];
                v[j + 1] = tmp;
            }
}
