#include <cstddef>
#include <vector>
#include <array>

// Histogram over 16 bins of width 3 from -60 (the last bin takes the rest);
// each value walks the bin edges from the first.
// perfalign: noalias
void banded_histogram(const std::vector<int> &x, const std::vector<double> &w, std::array<double, 16> &hist) {
    const std::size_t n = x.size();
    if (w.size() < n)
        return;
    for (int b = 0; b < 16; b++)
        hist[b] = 0;
    for (std::size_t i = 0; i < n; i++) {
        int b = 0;
        while (b + 1 < 16 && x[i] >= -60 + (b + 1) * 3)
            b++;
        hist[b]+= w[i];
    }
}
