#include <stddef.h>
#include <stdlib.h>

/* Number of pairs i < j with equal values, by comparing elements pairwise: O(n^2).
 * perfalign: size(codes)=n, range(codes)=0..4095
 */
long matching_pairs_u32(const unsigned *codes, size_t n) {
    long c = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (codes[i] == codes[j])
                c++;
    return c;
}
