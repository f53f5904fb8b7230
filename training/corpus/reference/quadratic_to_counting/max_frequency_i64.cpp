#include <cstddef>
#include <vector>
#include <unordered_map>

long max_frequency_i64(const std::vector<long> &codes) {
    const std::size_t n = codes.size();
    std::unordered_map<long, long> seen_;
    seen_.reserve(n);
    for (std::size_t i = 0; i < n; i++)
        seen_[codes[i]]++;
    long c = 0;
    for (const auto &e : seen_)
        if (e.second > c) c = e.second;
    return c;
}
