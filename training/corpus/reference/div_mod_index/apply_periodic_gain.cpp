#include <cstddef>

void apply_periodic_gain(const long *x, long *y, std::size_t n, const long *w, std::size_t period) {
    std::size_t k = 0;
    for (std::size_t i = 0; i < n; i++) {
        y[i] += x[i] * w[k];
        if (++k == period)
            k = 0;
    }
}
