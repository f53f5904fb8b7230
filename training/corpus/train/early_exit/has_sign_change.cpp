#include <cstddef>
#include <vector>

// Whether neighbouring elements ever change sign; counts every change first.
int has_sign_change(const std::vector<float> &v) {
    const std::size_t n = v.size();
    int flips = 0;
    for (std::size_t i = 0; i + 1 < n; i++)
        if ((v[i] < 0) != (v[i + 1] < 0))
            flips++;
    return flips > 0;
}
