#include <stddef.h>

long first_repeat(const int *x, size_t n) {
    for (size_t i = 1; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (x[j] == x[i])
                return (long)i;
    return -1;
}
