#include <cstddef>
#include <map>
#include <vector>

// Number of distinct values, counted in a std::map.
long how_many_kinds_i32(const std::vector<int> &ids) {
    std::map<int, long> m;
    for (std::size_t i = 0; i < ids.size(); i++)
        m[ids[i]]++;
    return static_cast<long>(m.size());
}
