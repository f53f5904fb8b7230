#include <stddef.h>

void bin_by_edges_i32(const int *v, const double *w, int n, double *h) {
    for (int b = 0; b < 20; b++)
        h[b] = 0;
    for (int i = 0; i < n; i++) {
        const unsigned long q = v[i] < -100 ? 0
            : ((unsigned long)v[i] - (unsigned long)(-100)) / 7;
        const int b = q > 19 ? 19 : (int)q;
        h[b]+= w[i];
    }
}
