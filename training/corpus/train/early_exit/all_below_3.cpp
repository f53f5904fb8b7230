#include <cstddef>
#include <vector>

// Whether every element is below limit; the loop runs to the end.
int all_below_3(const std::vector<float> &x, float limit) {
    const std::size_t n = x.size();
    int ok = 1;
    for (std::size_t i = 0; i < n; i++)
        if (x[i] >= limit)
            ok = 0;
    return ok;
}
