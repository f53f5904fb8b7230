#include <cstddef>

constexpr std::size_t W = 64;

// out[i] = mean over the window x[i..i+64) (clipped at the ends), re-summed for every i.
// perfalign: range(samples)=-1000..1000, noalias
void moving_average(const double *samples, double *level, long n) {
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = i; j < i + W && j < n; j++)
            s += samples[j];
        level[i] = static_cast<double>(s / (n - i < W ? n - i : W));
    }
}
