#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* place[i] = how many elements x[j] satisfy x[j] < x[i], by scanning all of x: O(n^2). */
/* perfalign: noalias */
void count_smaller(const short *score, long *place, long n) {
    for (long i = 0; i < n; i++) {
        long c = 0;
        for (long j = 0; j < n; j++)
            if (score[j] < score[i])
                c++;
        place[i] = c;
    }
}
