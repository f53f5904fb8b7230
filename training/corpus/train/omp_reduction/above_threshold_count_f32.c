#include <stddef.h>
#include <math.h>

/* count of sqrt(|v|) + exp(v) over all elements, in one serial loop. */
long above_threshold_count_f32(const float *samples, long n) {
    long s = 0;
    for (long i = 0; i < n; i++) {
        const double v = samples[i];
        if (sqrt(fabs(v)) + exp(v) > 1.2)
            s++;
    }
    return s;
}
