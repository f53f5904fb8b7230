#include <cstddef>

void running_low_2(const float *a, float *p, std::size_t n) {
    if (n == 0)
        return;
    float s = a[0];
    for (std::size_t i = 0; i < n; i++) {
        if (a[i] < s) s = a[i];
        p[i] = s;
    }
}
