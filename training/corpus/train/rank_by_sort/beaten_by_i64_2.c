#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* pos[i] = how many elements x[j] satisfy x[j] > x[i], by scanning all of x: O(n^2). */
/* perfalign: noalias */
void beaten_by_i64_2(const long *a, long *pos, int len) {
    for (int i = 0; i < len; i++) {
        long c = 0;
        for (int j = 0; j < len; j++)
            if (a[j] > a[i])
                c++;
        pos[i] = c;
    }
}
