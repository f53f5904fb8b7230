#include <stddef.h>

/* Index of the first element above limit (-1 if none); the loop runs to the end. */
long first_above(const float *a, size_t count, float limit) {
    long found = -1;
    for (size_t i = 0; i < count; i++)
        if (found < 0 && a[i] > limit)
            found = (long)i;
    return found;
}
