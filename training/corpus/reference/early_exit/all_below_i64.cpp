#include <cstddef>

int all_below_i64(const long *a, long count, long limit) {
    for (long i = 0; i < count; i++)
        if (a[i] >= limit)
            return 0;
    return 1;
}
