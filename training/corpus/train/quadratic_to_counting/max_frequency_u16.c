#include <stddef.h>
#include <stdlib.h>

/* How often the most frequent value occurs, by comparing elements pairwise: O(n^2).
 * perfalign: size(v)=n, range(v)=0..1023
 */
long max_frequency_u16(const unsigned short *v, size_t n) {
    long best = 0;
    for (size_t i = 0; i < n; i++) {
        long k = 0;
        for (size_t j = 0; j < n; j++)
            if (v[j] == v[i])
                k++;
        if (k > best)
            best = k;
    }
    return best;
}
