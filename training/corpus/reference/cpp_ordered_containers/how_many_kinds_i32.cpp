#include <cstddef>
#include <algorithm>
#include <vector>

long how_many_kinds_i32(const std::vector<int> &ids) {
    std::vector<int> s(ids);
    std::sort(s.begin(), s.end());
    return static_cast<long>(std::unique(s.begin(), s.end()) - s.begin());
}
