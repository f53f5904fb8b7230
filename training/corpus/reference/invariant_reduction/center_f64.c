#include <stddef.h>

void center_f64(const double *a, double *b, size_t n) {
    double total = 0.0;
    for (size_t j = 0; j < n; j++)
        total += a[j];
    for (size_t i = 0; i < n; i++) {
        b[i] = (double)(a[i] - total / n);
    }
}
