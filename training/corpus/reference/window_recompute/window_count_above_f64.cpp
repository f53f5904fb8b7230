#include <cstddef>
#include <vector>

constexpr std::size_t SPAN = 100;

void window_count_above_f64(const std::vector<double> &samples, std::vector<int> &level, double limit) {
    const std::size_t n = samples.size();
    level.assign(n, 0);
    int s = 0;
    for (std::size_t i = 0; i < n; i++) {
        s += (samples[i] > limit);
        if (i >= SPAN)
            s -= (samples[i - SPAN] > limit);
        level[i] = s;
    }
}
