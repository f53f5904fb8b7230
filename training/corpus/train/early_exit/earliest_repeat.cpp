#include <cstddef>

// Index of the first element equal to an earlier one (-1 if none); keeps scanning after it.
long earliest_repeat(const int *x, long n) {
    long found = -1;
    for (long i = 1; i < n; i++)
        for (long j = 0; j < i; j++)
            if (found < 0 && x[j] == x[i])
                found = (long)i;
    return found;
}
