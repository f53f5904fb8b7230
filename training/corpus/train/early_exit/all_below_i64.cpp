#include <cstddef>

// Whether every element is below limit; the loop runs to the end.
int all_below_i64(const long *a, long count, long limit) {
    int ok = 1;
    for (long i = 0; i < count; i++)
        if (a[i] >= limit)
            ok = 0;
    return ok;
}
