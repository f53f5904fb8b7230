#include <stddef.h>

#define WIDTH 32

void window_count_above_i32(const int *in, int *out, size_t n, int limit) {
    int s = 0;
    for (size_t i = n; i-- > 0;) {
        s += (in[i] > limit);
        if (i + WIDTH < n)
            s -= (in[i + WIDTH] > limit);
        out[i] = s;
    }
}
