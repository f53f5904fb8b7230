#include <stddef.h>
#include <stdlib.h>

/* Sort into descending order with selection sort: O(n^2). */
/* perfalign: noalias */
void sort_descending_u32(unsigned *data, int len) {
    for (int i = 0; i < len; i++) {
        int best = i;
        for (int j = i + 1; j < len; j++)
            if (data[j] > data[best])
                best = j;
        unsigned tmp = data[i];
        data[i] = data[best];
        data[best] = tmp;
    }
}
