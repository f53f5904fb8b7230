#include <stddef.h>

void bucket_totals_i32(const int *v, const double *w, long n, double *h) {
    for (int b = 0; b < 30; b++)
        h[b] = 0;
    for (long i = 0; i < n; i++) {
        const unsigned long q = v[i] < 0 ? 0
            : ((unsigned long)v[i] - (unsigned long)(0)) / 3;
        const int b = q > 29 ? 29 : (int)q;
        h[b]+= w[i];
    }
}
