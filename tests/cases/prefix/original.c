#include <stddef.h>

/* Running sums, recomputed from scratch for every element: O(n^2). */
void prefix_sums(const double *a, double *out, int n) {
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j <= i; j++)
            s += a[j];
        out[i] = s;
    }
}
