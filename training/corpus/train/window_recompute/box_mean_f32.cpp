#include <cstddef>
#include <vector>

constexpr std::size_t SPAN = 24;

// out[i] = mean over the window x[i..i+24) (clipped at the ends), re-summed for every i.
// perfalign: range(samples)=-1000..1000, noalias
void box_mean_f32(const std::vector<float> &samples, std::vector<float> &level) {
    const std::size_t n = samples.size();
    level.assign(n, 0.0f);
    for (std::size_t i = 0; i < n; i++) {
        double s = 0.0;
        for (std::size_t j = i; j < i + SPAN && j < n; j++)
            s += samples[j];
        level[i] = static_cast<float>(s / (n - i < SPAN ? n - i : SPAN));
    }
}
