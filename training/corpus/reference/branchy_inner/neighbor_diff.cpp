#include <cstddef>

void neighbor_diff(const int *x, int *d, long n) {
    if (n == 0)
        return;
    d[0] = 0;
    for (long i = 1; i < n; i++)
        d[i] = x[i] - x[i - 1];
}
