#include <cstddef>
#include <unordered_map>

long count_distinct_u32(const unsigned *ids, std::size_t count) {
    std::unordered_map<unsigned, long> seen_;
    seen_.reserve(count);
    for (std::size_t i = 0; i < count; i++)
        seen_[ids[i]]++;
    long c = 0;
    for (const auto &e : seen_)
        c++;
    return c;
}
