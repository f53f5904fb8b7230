#include <cstddef>
#include <vector>
#include <array>

void banded_histogram_i64(const std::vector<long> &v, std::array<long, 30> &h) {
    const std::size_t n = v.size();
    for (int b = 0; b < 30; b++)
        h[b] = 0;
    for (std::size_t i = 0; i < n; i++) {
        const long d = (long)v[i] - (0);
        int b = d < 0 ? 0 : (int)(d / 5);
        if (b > 29)
            b = 29;
        h[b]++;
    }
}
