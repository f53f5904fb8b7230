#include <stddef.h>
#include <stdlib.h>

/* Number of values that occur exactly once, by comparing elements pairwise: O(n^2).
 * perfalign: size(ids)=count, range(ids)=0..4095
 */
long count_singletons_u32(const unsigned *ids, long count) {
    long c = 0;
    for (long i = 0; i < count; i++) {
        long k = 0;
        for (long j = 0; j < count; j++)
            if (ids[j] == ids[i])
                k++;
        if (k == 1)
            c++;
    }
    return c;
}
