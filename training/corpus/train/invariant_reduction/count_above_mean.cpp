#include <cstddef>
#include <vector>

// How many elements lie above the mean; the reduction is recomputed for every element.
long count_above_mean(const std::vector<float> &a) {
    const std::size_t n = a.size();
    long count = 0;
    for (std::size_t i = 0; i < n; i++) {
        double total = 0.0;
        for (std::size_t j = 0; j < n; j++)
            total += a[j];
        if (a[i] * static_cast<double>(n) > total)
            count++;
    }
    return count;
}
