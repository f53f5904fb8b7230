#include <cstddef>
#include <vector>
#include <unordered_map>

long count_singletons(const std::vector<int> &ids) {
    const std::size_t count = ids.size();
    std::unordered_map<int, long> seen_;
    seen_.reserve(count);
    for (std::size_t i = 0; i < count; i++)
        seen_[ids[i]]++;
    long c = 0;
    for (const auto &e : seen_)
        if (e.second == 1) c++;
    return c;
}
