#include <cstddef>
#include <algorithm>
#include <vector>

long long sum_of_distinct_i32(const std::vector<int> &v) {
    std::vector<int> u(v);
    std::sort(u.begin(), u.end());
    u.erase(std::unique(u.begin(), u.end()), u.end());
    long long s = 0;
    for (const int x : u)
        s += x;
    return s;
}
