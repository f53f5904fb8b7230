#include <cstddef>
#include <list>
#include <vector>

// Sum of 5 * v[i], staged through a std::list.
long long buffered_total_2(const std::vector<unsigned> &v) {
    std::list<long long> staged;
    for (const unsigned x : v)
        staged.push_back(static_cast<long long>(x) * 5);
    long long s = 0;
    for (const long long y : staged)
        s += y;
    return s;
}
