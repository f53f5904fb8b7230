#include <cstddef>

int interleaved_dot_i32(const int *x, const int *y, std::size_t n) {
    int s = 0;
    for (std::size_t i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}
