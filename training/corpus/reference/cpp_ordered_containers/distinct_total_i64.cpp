#include <cstddef>
#include <algorithm>
#include <vector>

long long distinct_total_i64(const std::vector<long> &keys) {
    std::vector<long> u(keys);
    std::sort(u.begin(), u.end());
    u.erase(std::unique(u.begin(), u.end()), u.end());
    long long s = 0;
    for (const long x : u)
        s += x;
    return s;
}
