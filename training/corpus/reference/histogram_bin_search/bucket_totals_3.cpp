#include <cstddef>

void bucket_totals_3(const int *x, std::size_t n, int *hist) {
    for (int b = 0; b < 20; b++)
        hist[b] = 0;
    for (std::size_t i = 0; i < n; i++) {
        const long d = (long)x[i] - (-40);
        int b = d < 0 ? 0 : (int)(d / 10);
        if (b > 19)
            b = 19;
        hist[b]++;
    }
}
