#include <stddef.h>

int crosses_zero(const long *a, long count) {
    for (long i = 0; i + 1 < count; i++)
        if ((a[i] < 0) != (a[i + 1] < 0))
            return 1;
    return 0;
}
