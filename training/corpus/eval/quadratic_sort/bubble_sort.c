#include <stddef.h>
#include <stdlib.h>

/* Sort into ascending order with bubble sort: O(n^2). */
void bubble_sort(unsigned *data, int len) {
    for (int i = 0; i < len; i++)
        for (int j = 0; j + 1 < len - i; j++)
            if (data[j] > data[j + 1]) {
                unsigned tmp = data[j];
                data[j] = data[j + 1];
                data[j + 1] = tmp;
            }
}
