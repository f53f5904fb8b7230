#include <cstddef>
#include <vector>

int has_sign_change(const std::vector<float> &v) {
    const std::size_t n = v.size();
    for (std::size_t i = 0; i + 1 < n; i++)
        if ((v[i] < 0) != (v[i + 1] < 0))
            return 1;
    return 0;
}
