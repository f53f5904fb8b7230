#include <cstddef>
#include <vector>
#include <array>

void bucket_totals(const std::vector<short> &temps, std::array<int, 8> &bands) {
    const std::size_t n = temps.size();
    for (int b = 0; b < 8; b++)
        bands[b] = 0;
    for (std::size_t i = 0; i < n; i++) {
        const unsigned long q = temps[i] < -40 ? 0
            : ((unsigned long)temps[i] - (unsigned long)(-40)) / 3;
        const int b = q > 7 ? 7 : (int)q;
        bands[b]++;
    }
}
