#include <stddef.h>

/* Histogram of v[i] % bins into h[0..bins); clears h one element at a time inside the loop. */
void histogram_mod(const unsigned *v, size_t n, unsigned *h, size_t bins) {
    for (size_t b = 0; b < bins; b++) {
        h[b] = 0;
        for (size_t i = 0; i < n; i++)
            if (v[i] % bins == b) h[b]++;
    }
}
