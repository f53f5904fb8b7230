#include <stddef.h>

int all_below_2(const long *a, int count, long limit) {
    for (int i = 0; i < count; i++)
        if (a[i] >= limit)
            return 0;
    return 1;
}
