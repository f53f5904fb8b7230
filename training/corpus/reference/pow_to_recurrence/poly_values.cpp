#include <cstddef>
#include <cmath>

void poly_values(const double *c, std::size_t degree, const double *x, double *y, std::size_t n) {
    for (std::size_t i = 0; i < n; i++) {
        double acc = c[degree];
        for (std::size_t k = degree; k-- > 0;)
            acc = acc * x[i] + c[k];
        y[i] = acc;
    }
}
