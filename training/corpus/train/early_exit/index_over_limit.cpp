#include <cstddef>
#include <vector>

// Index of the first element above limit (-1 if none); the loop runs to the end.
long index_over_limit(const std::vector<int> &x, int limit) {
    const std::size_t n = x.size();
    long found = -1;
    for (std::size_t i = 0; i < n; i++)
        if (found < 0 && x[i] > limit)
            found = (long)i;
    return found;
}
