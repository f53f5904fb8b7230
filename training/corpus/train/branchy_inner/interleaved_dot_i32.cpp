#include <cstddef>

// Dot product with a parity branch whose two arms compute the same product.
int interleaved_dot_i32(const int *x, const int *y, std::size_t n) {
    int s = 0;
    for (std::size_t i = 0; i < n; i++) {
        if (i % 2 == 0)
            s += x[i] * y[i];
        else
            s += y[i] * x[i];
    }
    return s;
}
