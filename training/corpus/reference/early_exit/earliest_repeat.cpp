#include <cstddef>

long earliest_repeat(const int *x, long n) {
    for (long i = 1; i < n; i++)
        for (long j = 0; j < i; j++)
            if (x[j] == x[i])
                return (long)i;
    return -1;
}
