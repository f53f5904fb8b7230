#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* pos[i] = how many elements x[j] satisfy x[j] < x[i], by scanning all of x: O(n^2). */
/* perfalign: noalias */
void rank_strict_i16(const short *a, long *pos, size_t len) {
    for (size_t i = 0; i < len; i++) {
        long c = 0;
        for (size_t j = 0; j < len; j++)
            if (a[j] < a[i])
                c++;
        pos[i] = c;
    }
}
