#include <cstddef>

constexpr std::size_t WIN = 32;

// out[i] = sum over the window x[i-32+1..i] (clipped at the ends), re-summed for every i.
// perfalign: noalias
void moving_total_i32(const int *in, long *out, long n) {
    for (long i = 0; i < n; i++) {
        long s = 0;
        for (long j = i + 1 >= WIN ? i + 1 - WIN : 0; j <= i; j++)
            s += in[j];
        out[i] = s;
    }
}
