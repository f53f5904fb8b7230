#include <cstddef>

double sum_pair_products(const double *x, std::size_t n) {
    double s1 = 0, s2 = 0;
    for (std::size_t i = 0; i < n; i++) {
        const double e = x[i];
        s1 += e;
        s2 += e * e;
    }
    return (s1 * s1 - s2) / 2;
}
