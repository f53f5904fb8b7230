#include <cstddef>
#include <vector>
#include <array>

// Histogram over 16 bins of width 5 from -100 (the last bin takes the rest);
// each value walks the bin edges from the first.
// perfalign: noalias
void banded_histogram_3(const std::vector<long> &v, std::array<long, 16> &h) {
    const std::size_t n = v.size();
    for (int b = 0; b < 16; b++)
        h[b] = 0;
    for (std::size_t i = 0; i < n; i++) {
        int b = 0;
        while (b + 1 < 16 && v[i] >= -100 + (b + 1) * 5)
            b++;
        h[b]++;
    }
}
