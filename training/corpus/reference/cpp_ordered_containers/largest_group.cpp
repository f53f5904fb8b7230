#include <cstddef>
#include <unordered_map>
#include <vector>

long largest_group(const std::vector<short> &ids) {
    std::unordered_map<short, long> m;
    m.reserve(ids.size());
    for (const short x : ids)
        m[x] += 1;
    long best = 0;
    for (const auto &e : m)
        if (e.second > best)
            best = e.second;
    return best;
}
