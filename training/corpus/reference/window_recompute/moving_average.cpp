#include <cstddef>

constexpr std::size_t W = 64;

void moving_average(const double *samples, double *level, long n) {
    double s = 0.0;
    for (long i = n; i-- > 0;) {
        s += samples[i];
        if (i + W < n)
            s -= samples[i + W];
        level[i] = static_cast<double>(s / (n - i < W ? n - i : W));
    }
}
