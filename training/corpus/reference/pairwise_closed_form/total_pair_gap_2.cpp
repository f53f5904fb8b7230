#include <cstddef>
#include <vector>
#include <algorithm>

long long total_pair_gap_2(const std::vector<short> &x) {
    const std::size_t n = x.size();
    std::vector<short> s_(x);
    std::sort(s_.begin(), s_.end());
    long long s = 0, before = 0;
    for (std::size_t i = 0; i < n; i++) {
        s += static_cast<long long>(s_[i]) * static_cast<long long>(i) - before;
        before += s_[i];
    }
    return s;
}
