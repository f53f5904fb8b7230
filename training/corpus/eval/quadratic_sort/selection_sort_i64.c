#include <stddef.h>
#include <stdlib.h>

/* Sort into ascending order with selection sort: O(n^2). */
/* perfalign: noalias */
void selection_sort_i64(long long *keys, size_t count) {
    for (size_t i = 0; i < count; i++) {
        size_t best = i;
        for (size_t j = i + 1; j < count; j++)
            if (keys[j] < keys[best])
                best = j;
        long long tmp = keys[i];
        keys[i] = keys[best];
        keys[best] = tmp;
    }
}
