#include <cstddef>
#include <set>
#include <vector>

// Sum of the distinct values, collected in a std::set.
long long distinct_total_u32(const std::vector<unsigned> &ids) {
    std::set<unsigned> seen;
    for (const unsigned x : ids)
        seen.insert(x);
    long long s = 0;
    for (const unsigned x : seen)
        s += x;
    return s;
}
