#include <cstddef>

constexpr std::size_t WIDTH = 24;

// out[i] = mean over the window x[i-24+1..i] (clipped at the ends), re-summed for every i.
// perfalign: range(signal)=-1000..1000, noalias
void rolling_mean(const double *signal, double *smooth, long n) {
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = i + 1 >= WIDTH ? i + 1 - WIDTH : 0; j <= i; j++)
            s += signal[j];
        smooth[i] = static_cast<double>(s / (i + 1 < WIDTH ? i + 1 : WIDTH));
    }
}
