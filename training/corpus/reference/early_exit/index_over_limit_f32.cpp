#include <cstddef>

long index_over_limit_f32(const float *x, long n, float limit) {
    for (long i = 0; i < n; i++)
        if (x[i] > limit)
            return (long)i;
    return -1;
}
