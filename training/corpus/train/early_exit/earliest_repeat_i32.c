#include <stddef.h>

/* Index of the first element equal to an earlier one (-1 if none); keeps scanning after it. */
long earliest_repeat_i32(const int *data, int len) {
    long found = -1;
    for (int i = 1; i < len; i++)
        for (int j = 0; j < i; j++)
            if (found < 0 && data[j] == data[i])
                found = (long)i;
    return found;
}
