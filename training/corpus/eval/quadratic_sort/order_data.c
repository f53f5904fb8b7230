#include <stddef.h>
#include <stdlib.h>

/* Sort into descending order with selection sort: O(n^2). */
/* perfalign: noalias */
void order_data(unsigned *data, size_t len) {
    for (size_t i = 0; i < len; i++) {
        size_t best = i;
        for (size_t j = i + 1; j < len; j++)
            if (data[j] > data[best])
                best = j;
        unsigned tmp = data[i];
        data[i] = data[best];
        data[best] = tmp;
    }
}
