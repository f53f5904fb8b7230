#include <cstddef>
#include <vector>
#include <array>

void banded_histogram(const std::vector<int> &x, const std::vector<double> &w, std::array<double, 16> &hist) {
    const std::size_t n = x.size();
    if (w.size() < n)
        return;
    for (int b = 0; b < 16; b++)
        hist[b] = 0;
    for (std::size_t i = 0; i < n; i++) {
        const unsigned long q = x[i] < -60 ? 0
            : ((unsigned long)x[i] - (unsigned long)(-60)) / 3;
        const int b = q > 15 ? 15 : (int)q;
        hist[b]+= w[i];
    }
}
