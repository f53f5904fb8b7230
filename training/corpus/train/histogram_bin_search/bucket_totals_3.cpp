#include <cstddef>

// Histogram over 20 bins of width 10 from -40 (the last bin takes the rest);
// each value walks the bin edges from the first.
// perfalign: size(hist)=20, noalias
void bucket_totals_3(const int *x, std::size_t n, int *hist) {
    for (int b = 0; b < 20; b++)
        hist[b] = 0;
    for (std::size_t i = 0; i < n; i++) {
        int b = 0;
        while (b + 1 < 20 && x[i] >= -40 + (b + 1) * 10)
            b++;
        hist[b]++;
    }
}
