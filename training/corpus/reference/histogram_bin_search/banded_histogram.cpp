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
        const long d = (long)x[i] - (-60);
        int b = d < 0 ? 0 : (int)(d / 3);
        if (b > 15)
            b = 15;
        hist[b]+= w[i];
    }
}
