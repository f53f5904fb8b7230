#include <cstddef>
#include <vector>

int all_below_3(const std::vector<float> &x, float limit) {
    const std::size_t n = x.size();
    for (std::size_t i = 0; i < n; i++)
        if (x[i] >= limit)
            return 0;
    return 1;
}
