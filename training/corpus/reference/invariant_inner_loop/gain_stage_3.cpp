#include <cstddef>

void gain_stage_3(const double *x, double *y, std::size_t n, const double *w, std::size_t m) {
    double g = 0.0;
    for (std::size_t j = 0; j < m; j++)
        g += w[j];
    for (std::size_t i = 0; i < n; i++)
        y[i] += x[i] * g;
}
