#include <cstddef>

void bucket_totals_3(const int *x, std::size_t n, int *hist) {
    for (int b = 0; b < 20; b++)
        hist[b] = 0;
    for (std::size_t i = 0; i < n; i++) {
        const unsigned long q = x[i] < -40 ? 0
            : ((unsigned long)x[i] - (unsigned long)(-40)) / 10;
        const int b = q > 19 ? 19 : (int)q;
        hist[b]++;
    }
}
