#include <cstddef>
#include <map>
#include <vector>

// How often the most frequent value occurs, counted in a std::map.
long modal_count(const std::vector<unsigned> &ids) {
    std::map<unsigned, long> m;
    for (const unsigned x : ids)
        m[x] += 1;
    long best = 0;
    for (const auto &e : m)
        if (e.second > best)
            best = e.second;
    return best;
}
