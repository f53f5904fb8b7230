#include <cstddef>
#include <vector>
#include <unordered_map>

long count_singletons_i64(const std::vector<long> &v) {
    const std::size_t n = v.size();
    std::unordered_map<long, long> seen_;
    seen_.reserve(n);
    for (std::size_t i = 0; i < n; i++)
        seen_[v[i]]++;
    long c = 0;
    for (const auto &e : seen_)
        if (e.second == 1) c++;
    return c;
}
