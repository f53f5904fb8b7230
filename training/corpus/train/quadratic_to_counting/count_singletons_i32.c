#include <stddef.h>
#include <stdlib.h>

/* Number of values that occur exactly once, by comparing elements pairwise: O(n^2).
 * perfalign: size(codes)=n, range(codes)=0..99
 */
long count_singletons_i32(const int *codes, int n) {
    long c = 0;
    for (int i = 0; i < n; i++) {
        long k = 0;
        for (int j = 0; j < n; j++)
            if (codes[j] == codes[i])
                k++;
        if (k == 1)
            c++;
    }
    return c;
}
