#include <cstddef>
#include <vector>

// out[i] = min of in[0..i], recomputed from scratch for every i.
// perfalign: noalias
void prefix_min_f32(const std::vector<float> &data, std::vector<float> &result) {
    const std::size_t n = data.size();
    result.assign(n, 0.0f);
    for (std::size_t i = 0; i < n; i++) {
        float s = data[0];
        for (std::size_t j = 0; j <= i; j++)
            if (data[j] < s) s = data[j];
        result[i] = s;
    }
}
