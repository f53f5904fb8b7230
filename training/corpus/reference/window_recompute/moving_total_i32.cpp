#include <cstddef>

constexpr std::size_t WIN = 32;

void moving_total_i32(const int *in, long *out, long n) {
    long s = 0;
    for (long i = 0; i < n; i++) {
        s += in[i];
        if (i >= WIN)
            s -= in[i - WIN];
        out[i] = s;
    }
}
