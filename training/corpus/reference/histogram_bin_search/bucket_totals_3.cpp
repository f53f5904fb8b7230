#include <cstddef>

void bucket_totals_3(const int *x, std::size_t n, int *hist) {
    for (int b = 0; b < 20; b++)
        hist[b] = 0;
    for (std::size_t i = 0; i < n; i++) {
        const long d = (long)x[i] - (-40);
        const long q = d < 0 ? 0 : d / 10;
        const int b = q > 19 ? 19 : (int)q;
        hist[b]++;
    }
}
