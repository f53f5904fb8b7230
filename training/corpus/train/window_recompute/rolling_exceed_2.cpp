#include <cstddef>

constexpr std::size_t WIN = 64;

// out[i] = count_above over the window x[i-64+1..i] (clipped at the ends), re-summed for every i.
// perfalign: range(in)=-1000..1000, noalias
void rolling_exceed_2(const float *in, int *out, long n, float limit) {
    for (long i = 0; i < n; i++) {
        int s = 0;
        for (long j = i + 1 >= WIN ? i + 1 - WIN : 0; j <= i; j++)
            s += (in[j] > limit);
        out[i] = s;
    }
}
