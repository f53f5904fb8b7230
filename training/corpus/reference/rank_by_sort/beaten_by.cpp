#include <cstddef>
#include <vector>
#include <algorithm>

void beaten_by(const std::vector<unsigned> &a, std::vector<long> &pos) {
    const std::size_t len = a.size();
    pos.assign(len, 0);
    std::vector<unsigned> s_(a);
    std::sort(s_.begin(), s_.end());
    for (std::size_t i = 0; i < len; i++) {
        const long lo = static_cast<long>(std::upper_bound(s_.begin(), s_.end(), a[i]) - s_.begin());
        pos[i] = (static_cast<long>(len) - lo);
    }
}
