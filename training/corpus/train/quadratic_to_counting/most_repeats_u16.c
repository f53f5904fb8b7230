#include <stddef.h>
#include <stdlib.h>

/* How often the most frequent value occurs, by comparing elements pairwise: O(n^2).
 * perfalign: size(codes)=n, range(codes)=0..1023
 */
long most_repeats_u16(const unsigned short *codes, long n) {
    long best = 0;
    for (long i = 0; i < n; i++) {
        long k = 0;
        for (long j = 0; j < n; j++)
            if (codes[j] == codes[i])
                k++;
        if (k > best)
            best = k;
    }
    return best;
}
