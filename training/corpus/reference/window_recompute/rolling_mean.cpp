#include <cstddef>

constexpr std::size_t WIDTH = 24;

void rolling_mean(const double *signal, double *smooth, long n) {
    double s = 0.0;
    for (long i = 0; i < n; i++) {
        s += signal[i];
        if (i >= WIDTH)
            s -= signal[i - WIDTH];
        smooth[i] = static_cast<double>(s / (i + 1 < WIDTH ? i + 1 : WIDTH));
    }
}
