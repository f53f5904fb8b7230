#include <cstddef>
#include <vector>

// Each element minus the mean; the reduction is recomputed for every element.
// perfalign: noalias
void demean(const std::vector<float> &src, std::vector<float> &dst) {
    const std::size_t n = src.size();
    dst.assign(n, 0.0f);
    for (std::size_t i = 0; i < n; i++) {
        double total = 0.0;
        for (std::size_t j = 0; j < n; j++)
            total += src[j];
        dst[i] = static_cast<float>(src[i] - total / n);
    }
}
