#include <cstddef>
#include <set>
#include <vector>

// Sum of the distinct values, collected in a std::set.
long long sum_of_distinct_i32(const std::vector<int> &v) {
    std::set<int> seen;
    for (const int x : v)
        seen.insert(x);
    long long s = 0;
    for (const int x : seen)
        s += x;
    return s;
}
