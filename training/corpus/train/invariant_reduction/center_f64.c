#include <stddef.h>

/* Each element minus the mean; the reduction is recomputed for every element. */
/* perfalign: noalias */
void center_f64(const double *a, double *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        double total = 0.0;
        for (size_t j = 0; j < n; j++)
            total += a[j];
        b[i] = (double)(a[i] - total / n);
    }
}
