#include <cstddef>
#include <cmath>

void evaluate_polynomial_2(const float *c, std::size_t degree, const float *x, float *y, std::size_t n) {
    for (std::size_t i = 0; i < n; i++) {
        float acc = c[degree];
        for (std::size_t k = degree; k-- > 0;)
            acc = acc * x[i] + c[k];
        y[i] = acc;
    }
}
