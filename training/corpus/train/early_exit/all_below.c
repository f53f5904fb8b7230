#include <stddef.h>

/* Whether every element is below limit; the loop runs to the end. */
int all_below(const int *v, size_t n, int limit) {
    int ok = 1;
    for (size_t i = 0; i < n; i++)
        if (v[i] >= limit)
            ok = 0;
    return ok;
}
