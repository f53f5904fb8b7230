#include <stddef.h>

int all_below(const int *v, size_t n, int limit) {
    for (size_t i = 0; i < n; i++)
        if (v[i] >= limit)
            return 0;
    return 1;
}
