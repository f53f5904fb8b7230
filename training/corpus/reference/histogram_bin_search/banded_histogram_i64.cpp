#include <cstddef>
#include <vector>
#include <array>

void banded_histogram_i64(const std::vector<long> &v, std::array<long, 30> &h) {
    const std::size_t n = v.size();
    for (int b = 0; b < 30; b++)
        h[b] = 0;
    for (std::size_t i = 0; i < n; i++) {
        const unsigned long q = v[i] < 0 ? 0
            : ((unsigned long)v[i] - (unsigned long)(0)) / 5;
        const int b = q > 29 ? 29 : (int)q;
        h[b]++;
    }
}
