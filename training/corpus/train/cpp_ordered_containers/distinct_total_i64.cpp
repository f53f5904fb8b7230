#include <cstddef>
#include <set>
#include <vector>

// Sum of the distinct values, collected in a std::set.
long long distinct_total_i64(const std::vector<long> &keys) {
    std::set<long> seen;
    for (const long x : keys)
        seen.insert(x);
    long long s = 0;
    for (const long x : seen)
        s += x;
    return s;
}
