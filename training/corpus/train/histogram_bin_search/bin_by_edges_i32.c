#include <stddef.h>

/* Histogram over 20 bins of width 7 from -100 (the last bin takes the rest);
 * each value walks the bin edges from the first.
 * perfalign: size(h)=20, noalias
 */
void bin_by_edges_i32(const int *v, const double *w, int n, double *h) {
    for (int b = 0; b < 20; b++)
        h[b] = 0;
    for (int i = 0; i < n; i++) {
        int b = 0;
        while (b + 1 < 20 && v[i] >= -100 + (b + 1) * 7)
            b++;
        h[b]+= w[i];
    }
}
