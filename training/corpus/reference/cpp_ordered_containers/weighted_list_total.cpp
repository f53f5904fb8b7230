#include <cstddef>
#include <vector>

long long weighted_list_total(const std::vector<short> &values) {
    long long s = 0;
    for (const short x : values)
        s += static_cast<long long>(x) * 2;
    return s;
}
