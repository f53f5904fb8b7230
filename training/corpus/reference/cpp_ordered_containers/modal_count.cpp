#include <cstddef>
#include <unordered_map>
#include <vector>

long modal_count(const std::vector<unsigned> &ids) {
    std::unordered_map<unsigned, long> m;
    m.reserve(ids.size());
    for (const unsigned x : ids)
        m[x] += 1;
    long best = 0;
    for (const auto &e : m)
        if (e.second > best)
            best = e.second;
    return best;
}
