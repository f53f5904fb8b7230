#include <stddef.h>
#include <math.h>

long count_strong_f32(const float *data, long count) {
    long s = 0;
#pragma omp parallel for reduction(+ : s)
    for (long i = 0; i < count; i++) {
        const double v = data[i];
        if (exp(-v * v) > 1.2)
            s++;
    }
    return s;
}
