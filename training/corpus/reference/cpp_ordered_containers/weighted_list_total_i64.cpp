#include <cstddef>
#include <vector>

long long weighted_list_total_i64(const std::vector<long> &v) {
    long long s = 0;
    for (const long x : v)
        s += static_cast<long long>(x) * 2;
    return s;
}
