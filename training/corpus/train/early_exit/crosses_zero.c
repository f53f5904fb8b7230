#include <stddef.h>

/* Whether neighbouring elements ever change sign; counts every change first. */
int crosses_zero(const long *a, long count) {
    int flips = 0;
    for (long i = 0; i + 1 < count; i++)
        if ((a[i] < 0) != (a[i + 1] < 0))
            flips++;
    return flips > 0;
}
