#include <cstddef>
#include <cmath>
#include <vector>

// Each element divided by the largest magnitude; the reduction is recomputed for every element.
// perfalign: noalias
void scale_to_unit_f32(const std::vector<float> &src, std::vector<float> &dst) {
    const std::size_t n = src.size();
    dst.assign(n, 0.0f);
    for (std::size_t i = 0; i < n; i++) {
        float big = 0.0f;
        for (std::size_t j = 0; j < n; j++)
            if (std::fabs(src[j]) > big)
                big = std::fabs(src[j]);
        dst[i] = big > 0.0f ? src[i] / big : 0.0f;
    }
}
