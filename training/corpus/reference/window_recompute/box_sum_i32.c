#include <stddef.h>

#define WIN 64

void box_sum_i32(const int *samples, long *level, long n) {
    long s = 0;
    for (long i = n; i-- > 0;) {
        s += samples[i];
        if (i + WIN < n)
            s -= samples[i + WIN];
        level[i] = s;
    }
}
