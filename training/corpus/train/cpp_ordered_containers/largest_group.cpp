#include <cstddef>
#include <map>
#include <vector>

// How often the most frequent value occurs, counted in a std::map.
long largest_group(const std::vector<short> &ids) {
    std::map<short, long> m;
    for (const short x : ids)
        m[x] += 1;
    long best = 0;
    for (const auto &e : m)
        if (e.second > best)
            best = e.second;
    return best;
}
