#include <cstddef>

constexpr std::size_t WIN = 100;

// out[i] = count_above over the window x[i..i+100) (clipped at the ends), re-summed for every i.
// perfalign: range(signal)=-1000..1000, noalias
void rolling_exceed(const float *signal, int *smooth, std::size_t n, float limit) {
    for (std::size_t i = 0; i < n; i++) {
        int s = 0;
        for (std::size_t j = i; j < i + WIN && j < n; j++)
            s += (signal[j] > limit);
        smooth[i] = s;
    }
}
