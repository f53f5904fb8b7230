#include <stddef.h>
#include <math.h>

long above_threshold_count_f32(const float *samples, long n) {
    long s = 0;
#pragma omp parallel for reduction(+ : s)
    for (long i = 0; i < n; i++) {
        const double v = samples[i];
        if (sqrt(fabs(v)) + exp(v) > 1.2)
            s++;
    }
    return s;
}
