#include <cstddef>
#include <vector>
#include <algorithm>

void beaten_by_i64(const std::vector<long> &x, std::vector<long> &rank) {
    const std::size_t n = x.size();
    rank.assign(n, 0);
    std::vector<long> s_(x);
    std::sort(s_.begin(), s_.end());
    for (std::size_t i = 0; i < n; i++) {
        const long lo = static_cast<long>(std::upper_bound(s_.begin(), s_.end(), x[i]) - s_.begin());
        rank[i] = (static_cast<long>(n) - lo);
    }
}
