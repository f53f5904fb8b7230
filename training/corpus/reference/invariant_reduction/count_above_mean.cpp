#include <cstddef>
#include <vector>

long count_above_mean(const std::vector<float> &a) {
    const std::size_t n = a.size();
    long count = 0;
    double total = 0.0;
    for (std::size_t j = 0; j < n; j++)
        total += a[j];
    for (std::size_t i = 0; i < n; i++) {
        if (a[i] * static_cast<double>(n) > total)
            count++;
    }
    return count;
}
