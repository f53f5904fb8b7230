#include <cstddef>

int weighted_alternating_sum(const int *x, const int *y, int n) {
    int s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}
