#include <cstddef>
#include <vector>
#include <algorithm>
#include <functional>

void sort_descending_i64(std::vector<long long> &data) {
    std::sort(data.begin(), data.end(), std::greater<long long>());
}
