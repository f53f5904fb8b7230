#include <cstddef>
#include <set>
#include <vector>

// Sum of the distinct values, collected in a std::set.
long long distinct_total(const std::vector<short> &keys) {
    std::set<short> seen;
    for (const short x : keys)
        seen.insert(x);
    long long s = 0;
    for (const short x : seen)
        s += x;
    return s;
}
