#include <cstddef>

// Sum of a[i] * a[j] over all pairs i < j: O(n^2).
double sum_pair_products(const double *x, std::size_t n) {
    double s = 0;
    for (std::size_t i = 0; i < n; i++)
        for (std::size_t j = i + 1; j < n; j++) {
                s += (double)x[i] * x[j];
        }
    return s;
}
