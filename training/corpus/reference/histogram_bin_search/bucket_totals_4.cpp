#include <cstddef>
#include <vector>
#include <array>

void bucket_totals_4(const std::vector<short> &temps, std::array<long, 8> &bands) {
    const std::size_t n = temps.size();
    for (int b = 0; b < 8; b++)
        bands[b] = 0;
    for (std::size_t i = 0; i < n; i++) {
        const unsigned long q = temps[i] < 0 ? 0
            : ((unsigned long)temps[i] - (unsigned long)(0)) / 5;
        const int b = q > 7 ? 7 : (int)q;
        bands[b]++;
    }
}
