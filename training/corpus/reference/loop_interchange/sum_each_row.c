#include <stddef.h>

void sum_each_row(const double *a, double *out, long m, long n) {
    for (long i = 0; i < m; i++)
        out[i] = 0.0;
    for (long j = 0; j < n; j++) {
        for (long i = 0; i < m; i++)
            out[i] += a[j * m + i] * a[j * m + i];
    }
}
