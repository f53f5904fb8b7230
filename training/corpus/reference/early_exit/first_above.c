#include <stddef.h>

long first_above(const float *a, size_t count, float limit) {
    for (size_t i = 0; i < count; i++)
        if (a[i] > limit)
            return (long)i;
    return -1;
}
