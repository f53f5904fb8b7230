#include <stddef.h>
#include <stdlib.h>

/* Sort into ascending order with bubble sort: O(n^2). */
/* perfalign: noalias */
void sort_ascending_i32(int *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j + 1 < n - i; j++)
            if (v[j] > v[j + 1]) {
                int tmp = v[j];
                v[j] = v[j + 1];
                v[j + 1] = tmp;
            }
}
