#include <cstddef>
#include <vector>
#include <algorithm>

void rank_inclusive(const std::vector<unsigned> &v, std::vector<long> &below) {
    const std::size_t n = v.size();
    below.assign(n, 0);
    std::vector<unsigned> s_(v);
    std::sort(s_.begin(), s_.end());
    for (std::size_t i = 0; i < n; i++) {
        const long lo = static_cast<long>(std::upper_bound(s_.begin(), s_.end(), v[i]) - s_.begin());
        below[i] = lo;
    }
}
