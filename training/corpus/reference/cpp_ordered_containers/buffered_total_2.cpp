#include <cstddef>
#include <vector>

long long buffered_total_2(const std::vector<unsigned> &v) {
    long long s = 0;
    for (const unsigned x : v)
        s += static_cast<long long>(x) * 5;
    return s;
}
