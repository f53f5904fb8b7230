#include <cstddef>
#include <vector>
#include <algorithm>
#include <functional>

// Sort into descending order with bubble sort: O(n^2).
// perfalign: noalias
void sort_descending_i64(std::vector<long long> &data) {
    const std::size_t len = data.size();
    for (std::size_t i = 0; i < len; i++)
        for (std::size_t j = 0; j + 1 < len - i; j++)
            if (data[j] < data[j + 1]) {
                long long tmp = data[j];
                data[j] = data[j + 1];
                data[j + 1] = tmp;
            }
}
