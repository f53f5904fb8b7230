#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* below[i] = how many elements x[j] satisfy x[j] <= x[i], by scanning all of x: O(n^2). */
/* perfalign: noalias */
void rank_inclusive_i16(const short *v, long *below, size_t n) {
    for (size_t i = 0; i < n; i++) {
        long c = 0;
        for (size_t j = 0; j < n; j++)
            if (v[j] <= v[i])
                c++;
        below[i] = c;
    }
}
