#include <cstddef>

// Dot product with a parity branch whose two arms compute the same product.
int weighted_alternating_sum(const int *x, const int *y, int n) {
    int s = 0;
    for (int i = 0; i < n; i++) {
        if (i % 2 == 0)
            s += x[i] * y[i];
        else
            s += y[i] * x[i];
    }
    return s;
}
