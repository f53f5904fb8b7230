#include <stddef.h>

/* Number of index pairs i < j with v[i] == v[j], for small non-negative values. */
long count_equal_pairs(const unsigned char *v, size_t n) {
    long pairs = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (v[i] == v[j]) pairs++;
    return pairs;
}
