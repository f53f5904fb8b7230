#include <stddef.h>
#include <stdlib.h>

/* Number of pairs i < j with equal values, by comparing elements pairwise: O(n^2).
 * perfalign: size(codes)=n, range(codes)=0..99
 */
long count_equal_pairs(const int *codes, int n) {
    long c = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (codes[i] == codes[j])
                c++;
    return c;
}
