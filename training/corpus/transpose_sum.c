#include <stddef.h>

/* out = a + transpose(a) for an n x n row-major matrix. */
void transpose_sum(const double *a, double *out, size_t n) {
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
            out[i * n + j] = a[i * n + j] + a[j * n + i];
}
