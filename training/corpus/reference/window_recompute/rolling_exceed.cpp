#include <cstddef>

constexpr std::size_t WIN = 100;

void rolling_exceed(const float *signal, int *smooth, std::size_t n, float limit) {
    int s = 0;
    for (std::size_t i = n; i-- > 0;) {
        s += (signal[i] > limit);
        if (i + WIN < n)
            s -= (signal[i + WIN] > limit);
        smooth[i] = s;
    }
}
