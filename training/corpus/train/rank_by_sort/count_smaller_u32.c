#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* rank[i] = how many elements x[j] satisfy x[j] < x[i], by scanning all of x: O(n^2). */
/* perfalign: noalias */
void count_smaller_u32(const unsigned *x, long *rank, size_t n) {
    for (size_t i = 0; i < n; i++) {
        long c = 0;
        for (size_t j = 0; j < n; j++)
            if (x[j] < x[i])
                c++;
        rank[i] = c;
    }
}
