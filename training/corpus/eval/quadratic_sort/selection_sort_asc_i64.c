#include <stddef.h>
#include <stdlib.h>

/* Sort into ascending order with selection sort: O(n^2). */
/* perfalign: noalias */
void selection_sort_asc_i64(long *a, size_t n) {
    for (size_t i = 0; i < n; i++) {
        size_t best = i;
        for (size_t j = i + 1; j < n; j++)
            if (a[j] < a[best])
                best = j;
        long tmp = a[i];
        a[i] = a[best];
        a[best] = tmp;
    }
}
