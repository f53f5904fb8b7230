#include <cstddef>

constexpr std::size_t WIN = 64;

void rolling_exceed_2(const float *in, int *out, long n, float limit) {
    int s = 0;
    for (long i = 0; i < n; i++) {
        s += (in[i] > limit);
        if (i >= WIN)
            s -= (in[i - WIN] > limit);
        out[i] = s;
    }
}
