#include <cstddef>
#include <vector>
#include <array>

// Histogram over 30 bins of width 5 from 0 (the last bin takes the rest);
// each value walks the bin edges from the first.
// perfalign: noalias
void banded_histogram_i64(const std::vector<long> &v, std::array<long, 30> &h) {
    const std::size_t n = v.size();
    for (int b = 0; b < 30; b++)
        h[b] = 0;
    for (std::size_t i = 0; i < n; i++) {
        int b = 0;
        while (b + 1 < 30 && v[i] >= 0 + (b + 1) * 5)
            b++;
        h[b]++;
    }
}
