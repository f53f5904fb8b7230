#include <cstddef>
#include <map>
#include <vector>

// Number of distinct values, counted in a std::map.
long how_many_kinds_i16(const std::vector<short> &v) {
    std::map<short, long> m;
    for (std::size_t i = 0; i < v.size(); i++)
        m[v[i]]++;
    return static_cast<long>(m.size());
}
