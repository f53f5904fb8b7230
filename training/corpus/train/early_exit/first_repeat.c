#include <stddef.h>

/* Index of the first element equal to an earlier one (-1 if none); keeps scanning after it. */
long first_repeat(const int *x, size_t n) {
    long found = -1;
    for (size_t i = 1; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (found < 0 && x[j] == x[i])
                found = (long)i;
    return found;
}
