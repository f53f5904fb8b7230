#include <cstddef>

// Backward differences with index tests in the loop body.
// perfalign: noalias
void neighbor_diff(const int *x, int *d, long n) {
    for (long i = 0; i < n; i++) {
        if (i == 0)
            d[i] = 0;
        else if (i == n - 1)
            d[i] = x[i] - x[i - 1];
        else
            d[i] = x[i] - x[i - 1];
    }
}
