#include <cstddef>
#include <list>
#include <vector>

// Sum of 3 * v[i], staged through a std::list.
long long buffered_total(const std::vector<int> &v) {
    std::list<long long> staged;
    for (const int x : v)
        staged.push_back(static_cast<long long>(x) * 3);
    long long s = 0;
    for (const long long y : staged)
        s += y;
    return s;
}
