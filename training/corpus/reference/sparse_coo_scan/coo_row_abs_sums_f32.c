#include <stddef.h>
#include <math.h>

void coo_row_abs_sums_f32(const long *rows, const long *cols, const float *vals, float *out, int n) {
    const int nnz = 2 * n;
    for (int i = 0; i < n; i++)
        out[i] = 0.0f;
    for (int k = 0; k < nnz; k++)
        out[rows[k]] += fabsf(vals[k]);
}
