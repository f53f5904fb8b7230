#include <stddef.h>

/* Whether every element is below limit; the loop runs to the end. */
int all_below_2(const long *a, int count, long limit) {
    int ok = 1;
    for (int i = 0; i < count; i++)
        if (a[i] >= limit)
            ok = 0;
    return ok;
}
