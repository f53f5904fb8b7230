#include <cstddef>
#include <vector>
#include <algorithm>

void sort_ascending_u32(std::vector<unsigned> &v) {
    std::sort(v.begin(), v.end());
}
