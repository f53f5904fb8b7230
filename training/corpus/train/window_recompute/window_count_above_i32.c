#include <stddef.h>

#define WIDTH 32

/* out[i] = count_above over the window x[i..i+32) (clipped at the ends), re-summed for every i. */
/* perfalign: noalias */
void window_count_above_i32(const int *in, int *out, size_t n, int limit) {
    for (size_t i = 0; i < n; i++) {
        int s = 0;
        for (size_t j = i; j < i + WIDTH && j < n; j++)
            s += (in[j] > limit);
        out[i] = s;
    }
}
