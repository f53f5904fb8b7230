#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* place[i] = how many elements x[j] satisfy x[j] <= x[i], by scanning all of x: O(n^2). */
/* perfalign: noalias */
void cumulative_rank(const long *score, long *place, size_t n) {
    for (size_t i = 0; i < n; i++) {
        long c = 0;
        for (size_t j = 0; j < n; j++)
            if (score[j] <= score[i])
                c++;
        place[i] = c;
    }
}
