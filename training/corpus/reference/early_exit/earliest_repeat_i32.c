#include <stddef.h>

long earliest_repeat_i32(const int *data, int len) {
    for (int i = 1; i < len; i++)
        for (int j = 0; j < i; j++)
            if (data[j] == data[i])
                return (long)i;
    return -1;
}
