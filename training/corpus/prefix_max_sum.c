#include <stddef.h>

/* Sum over i of max(a[0..i]); quadratic as written. */
long prefix_max_sum(const int *a, size_t n) {
    long total = 0;
    for (size_t i = 0; i < n; i++) {
        int m = a[0];
        for (size_t j = 1; j <= i; j++)
            if (a[j] > m) m = a[j];
        total += m;
    }
    return total;
}
