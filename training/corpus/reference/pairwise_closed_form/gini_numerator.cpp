#include <cstddef>
#include <vector>
#include <algorithm>

long long gini_numerator(const std::vector<int> &v) {
    const std::size_t n = v.size();
    std::vector<int> s_(v);
    std::sort(s_.begin(), s_.end());
    long long s = 0, before = 0;
    for (std::size_t i = 0; i < n; i++) {
        s += static_cast<long long>(s_[i]) * static_cast<long long>(i) - before;
        before += s_[i];
    }
    return s;
}
