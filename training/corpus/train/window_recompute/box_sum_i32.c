#include <stddef.h>

#define WIN 64

/* out[i] = sum over the window x[i..i+64) (clipped at the ends), re-summed for every i. */
/* perfalign: noalias */
void box_sum_i32(const int *samples, long *level, long n) {
    for (long i = 0; i < n; i++) {
        long s = 0;
        for (long j = i; j < i + WIN && j < n; j++)
            s += samples[j];
        level[i] = s;
    }
}
