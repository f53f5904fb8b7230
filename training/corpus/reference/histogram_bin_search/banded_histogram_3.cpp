#include <cstddef>
#include <vector>
#include <array>

void banded_histogram_3(const std::vector<long> &v, std::array<long, 16> &h) {
    const std::size_t n = v.size();
    for (int b = 0; b < 16; b++)
        h[b] = 0;
    for (std::size_t i = 0; i < n; i++) {
        const long d = (long)v[i] - (-100);
        const long q = d < 0 ? 0 : d / 5;
        const int b = q > 15 ? 15 : (int)q;
        h[b]++;
    }
}
