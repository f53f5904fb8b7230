#include <stddef.h>
#include <math.h>

/* Iterations of z = z^2 + c (at most 200) until |z| > 2, for each c; every iteration is independent. */
/* perfalign: noalias */
void orbit_counts_f64(const double *c0, int *iters, long n) {
    for (long i = 0; i < n; i++) {
        double z = 0.0;
        int k = 0;
        while (k < 200 && z * z <= 4.0) {
            z = z * z + c0[i];
            k++;
        }
        iters[i] = k;
    }
}
