#include <cstddef>
#include <map>
#include <vector>

// Number of distinct values, counted in a std::map.
long how_many_kinds_2(const std::vector<unsigned> &values) {
    std::map<unsigned, long> m;
    for (std::size_t i = 0; i < values.size(); i++)
        m[values[i]]++;
    return static_cast<long>(m.size());
}
