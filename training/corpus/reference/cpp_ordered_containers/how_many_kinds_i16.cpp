#include <cstddef>
#include <algorithm>
#include <vector>

long how_many_kinds_i16(const std::vector<short> &v) {
    std::vector<short> s(v);
    std::sort(s.begin(), s.end());
    return static_cast<long>(std::unique(s.begin(), s.end()) - s.begin());
}
