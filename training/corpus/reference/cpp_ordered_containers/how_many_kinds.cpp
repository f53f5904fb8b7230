#include <cstddef>
#include <algorithm>
#include <vector>

long how_many_kinds(const std::vector<long> &values) {
    std::vector<long> s(values);
    std::sort(s.begin(), s.end());
    return static_cast<long>(std::unique(s.begin(), s.end()) - s.begin());
}
