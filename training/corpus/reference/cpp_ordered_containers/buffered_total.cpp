#include <cstddef>
#include <vector>

long long buffered_total(const std::vector<int> &v) {
    long long s = 0;
    for (const int x : v)
        s += static_cast<long long>(x) * 3;
    return s;
}
