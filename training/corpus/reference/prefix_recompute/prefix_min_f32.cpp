#include <cstddef>
#include <vector>

void prefix_min_f32(const std::vector<float> &data, std::vector<float> &result) {
    const std::size_t n = data.size();
    result.assign(n, 0.0f);
    if (n == 0)
        return;
    float s = data[0];
    for (std::size_t i = 0; i < n; i++) {
        if (data[i] < s) s = data[i];
        result[i] = s;
    }
}
