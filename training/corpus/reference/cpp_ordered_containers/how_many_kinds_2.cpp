#include <cstddef>
#include <algorithm>
#include <vector>

long how_many_kinds_2(const std::vector<unsigned> &values) {
    std::vector<unsigned> s(values);
    std::sort(s.begin(), s.end());
    return static_cast<long>(std::unique(s.begin(), s.end()) - s.begin());
}
