#include <cstddef>
#include <vector>
#include <array>

void banded_histogram_3(const std::vector<long> &v, std::array<long, 16> &h) {
    const std::size_t n = v.size();
    for (int b = 0; b < 16; b++)
        h[b] = 0;
    for (std::size_t i = 0; i < n; i++) {
        const unsigned long q = v[i] < -100 ? 0
            : ((unsigned long)v[i] - (unsigned long)(-100)) / 5;
        const int b = q > 15 ? 15 : (int)q;
        h[b]++;
    }
}
