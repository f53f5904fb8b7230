#include <cstddef>
#include <vector>
#include <array>

// Histogram over 8 bins of width 5 from 0 (the last bin takes the rest);
// each value walks the bin edges from the first.
// perfalign: noalias
void bucket_totals_4(const std::vector<short> &temps, std::array<long, 8> &bands) {
    const std::size_t n = temps.size();
    for (int b = 0; b < 8; b++)
        bands[b] = 0;
    for (std::size_t i = 0; i < n; i++) {
        int b = 0;
        while (b + 1 < 8 && temps[i] >= 0 + (b + 1) * 5)
            b++;
        bands[b]++;
    }
}
