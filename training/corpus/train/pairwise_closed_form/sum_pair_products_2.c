#include <stddef.h>

/* Sum of a[i] * a[j] over all pairs i < j: O(n^2). */
long long sum_pair_products_2(const long *v, int n) {
    long long s = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
                s += (long long)v[i] * v[j];
        }
    return s;
}
