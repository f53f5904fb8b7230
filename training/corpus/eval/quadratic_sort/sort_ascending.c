#include <stddef.h>
#include <stdlib.h>

/* Sort into ascending order with insertion sort: O(n^2). */
/* perfalign: noalias */
void sort_ascending(long *a, int n) {
    for (int i = 1; i < n; i++) {
        long key = a[i];
        int j = i;
        while (j > 0 && a[j - 1] > key) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = key;
    }
}
