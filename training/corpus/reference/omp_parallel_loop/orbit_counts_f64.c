#include <stddef.h>
#include <math.h>

void orbit_counts_f64(const double *c0, int *iters, long n) {
#pragma omp parallel for schedule(static)
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
