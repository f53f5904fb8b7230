#include <stddef.h>
#include <stdlib.h>

/* Number of distinct values, by comparing elements pairwise: O(n^2).
 * perfalign: size(ids)=count, range(ids)=0..99
 */
long count_distinct(const int *ids, size_t count) {
    long c = 0;
    for (size_t i = 0; i < count; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            if (ids[j] == ids[i]) {
                seen = 1;
                break;
            }
        if (!seen)
            c++;
    }
    return c;
}
