#include <cstddef>
#include <vector>

constexpr std::size_t SPAN = 24;

void box_mean_f32(const std::vector<float> &samples, std::vector<float> &level) {
    const std::size_t n = samples.size();
    level.assign(n, 0.0f);
    double s = 0.0;
    for (std::size_t i = n; i-- > 0;) {
        s += samples[i];
        if (i + SPAN < n)
            s -= samples[i + SPAN];
        level[i] = static_cast<float>(s / (n - i < SPAN ? n - i : SPAN));
    }
}
