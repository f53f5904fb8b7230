#include <stddef.h>
#include <stdlib.h>

/* Sort into descending order with insertion sort: O(n^2). */
/* perfalign: noalias */
void insertion_sort_desc(unsigned *data, int len) {
    for (int i = 1; i < len; i++) {
        unsigned key = data[i];
        int j = i;
        while (j > 0 && data[j - 1] < key) {
            data[j] = data[j - 1];
            j--;
        }
        data[j] = key;
    }
}
