#include <cstddef>
#include <list>
#include <vector>

// Sum of 2 * v[i], staged through a std::list.
long long weighted_list_total(const std::vector<short> &values) {
    std::list<long long> staged;
    for (const short x : values)
        staged.push_back(static_cast<long long>(x) * 2);
    long long s = 0;
    for (const long long y : staged)
        s += y;
    return s;
}
