#include <cstddef>
#include <algorithm>
#include <vector>

long long distinct_total(const std::vector<short> &keys) {
    std::vector<short> u(keys);
    std::sort(u.begin(), u.end());
    u.erase(std::unique(u.begin(), u.end()), u.end());
    long long s = 0;
    for (const short x : u)
        s += x;
    return s;
}
