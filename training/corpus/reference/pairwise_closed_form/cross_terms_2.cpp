#include <cstddef>
#include <vector>

long long cross_terms_2(const std::vector<long> &vals) {
    const std::size_t n = vals.size();
    long long s1 = 0, s2 = 0;
    for (std::size_t i = 0; i < n; i++) {
        const long long e = vals[i];
        s1 += e;
        s2 += e * e;
    }
    return (s1 * s1 - s2) / 2;
}
