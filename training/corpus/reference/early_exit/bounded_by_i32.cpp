#include <cstddef>

int bounded_by_i32(const int *x, std::size_t n, int limit) {
    for (std::size_t i = 0; i < n; i++)
        if (x[i] >= limit)
            return 0;
    return 1;
}
