#include <cstddef>
#include <vector>

long index_over_limit(const std::vector<int> &x, int limit) {
    const std::size_t n = x.size();
    for (std::size_t i = 0; i < n; i++)
        if (x[i] > limit)
            return (long)i;
    return -1;
}
