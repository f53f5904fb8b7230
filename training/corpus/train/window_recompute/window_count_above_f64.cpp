#include <cstddef>
#include <vector>

constexpr std::size_t SPAN = 100;

// out[i] = count_above over the window x[i-100+1..i] (clipped at the ends), re-summed for every i.
// perfalign: range(samples)=-1000..1000, noalias
void window_count_above_f64(const std::vector<double> &samples, std::vector<int> &level, double limit) {
    const std::size_t n = samples.size();
    level.assign(n, 0);
    for (std::size_t i = 0; i < n; i++) {
        int s = 0;
        for (std::size_t j = i + 1 >= SPAN ? i + 1 - SPAN : 0; j <= i; j++)
            s += (samples[j] > limit);
        level[i] = s;
    }
}
