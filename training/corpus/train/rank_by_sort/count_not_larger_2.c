#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* below[i] = how many elements x[j] satisfy x[j] <= x[i], by scanning all of x: O(n^2). */
/* perfalign: noalias */
void count_not_larger_2(const long *v, long *below, int n) {
    for (int i = 0; i < n; i++) {
        long c = 0;
        for (int j = 0; j < n; j++)
            if (v[j] <= v[i])
                c++;
        below[i] = c;
    }
}
