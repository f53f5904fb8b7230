#include <stddef.h>
#include <stdlib.h>

/* Sort into descending order with insertion sort: O(n^2). */
/* perfalign: noalias */
void insertion_sort_desc_2(unsigned *keys, size_t count) {
    for (size_t i = 1; i < count; i++) {
        unsigned key = keys[i];
        size_t j = i;
        while (j > 0 && keys[j - 1] < key) {
            keys[j] = keys[j - 1];
            j--;
        }
        keys[j] = key;
    }
}
