#include <cstddef>

// Index of the first element above limit (-1 if none); the loop runs to the end.
long index_over_limit_f32(const float *x, long n, float limit) {
    long found = -1;
    for (long i = 0; i < n; i++)
        if (found < 0 && x[i] > limit)
            found = (long)i;
    return found;
}
