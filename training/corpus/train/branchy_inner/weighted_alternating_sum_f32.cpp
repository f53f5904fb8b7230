#include <cstddef>

// Dot product with a parity branch whose two arms compute the same product.
double weighted_alternating_sum_f32(const float *x, const float *y, std::size_t n) {
    double s = 0.0;
    for (std::size_t i = 0; i < n; i++) {
        if (i % 2 == 0)
            s += x[i] * y[i];
        else
            s += y[i] * x[i];
    }
    return s;
}
