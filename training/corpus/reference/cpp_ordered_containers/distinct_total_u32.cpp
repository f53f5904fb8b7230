#include <cstddef>
#include <algorithm>
#include <vector>

long long distinct_total_u32(const std::vector<unsigned> &ids) {
    std::vector<unsigned> u(ids);
    std::sort(u.begin(), u.end());
    u.erase(std::unique(u.begin(), u.end()), u.end());
    long long s = 0;
    for (const unsigned x : u)
        s += x;
    return s;
}
