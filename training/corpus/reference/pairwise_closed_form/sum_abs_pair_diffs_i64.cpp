#include <cstddef>
#include <vector>
#include <algorithm>

long long sum_abs_pair_diffs_i64(const std::vector<long> &a) {
    const std::size_t n = a.size();
    std::vector<long> s_(a);
    std::sort(s_.begin(), s_.end());
    long long s = 0, before = 0;
    for (std::size_t i = 0; i < n; i++) {
        s += static_cast<long long>(s_[i]) * static_cast<long long>(i) - before;
        before += s_[i];
    }
    return s;
}
