#include <cstddef>
#include <vector>
#include <algorithm>

void sort_ascending_2(std::vector<long long> &keys) {
    std::sort(keys.begin(), keys.end());
}
