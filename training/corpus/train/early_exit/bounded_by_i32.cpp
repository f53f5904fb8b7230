#include <cstddef>

// Whether every element is below limit; the loop runs to the end.
int bounded_by_i32(const int *x, std::size_t n, int limit) {
    int ok = 1;
    for (std::size_t i = 0; i < n; i++)
        if (x[i] >= limit)
            ok = 0;
    return ok;
}
