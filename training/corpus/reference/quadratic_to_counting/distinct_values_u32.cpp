#include <cstddef>
#include <vector>
#include <unordered_map>

long distinct_values_u32(const std::vector<unsigned> &keys) {
    const std::size_t n = keys.size();
    std::unordered_map<unsigned, long> seen_;
    seen_.reserve(n);
    for (std::size_t i = 0; i < n; i++)
        seen_[keys[i]]++;
    long c = 0;
    for (const auto &e : seen_)
        c++;
    return c;
}
