#include <stddef.h>
#include <math.h>

/* For a sparse n x n matrix given as 2 * n (row, column, value) triples in any order,
 * the sum of magnitudes in each row; every row scans all the triples.
 * perfalign: size(rows)=2*n, size(cols)=2*n, size(vals)=2*n, range(rows)=0..n-1, range(cols)=0..n-1, size(out)=n, noalias
 */
void coo_row_abs_sums_f32(const long *rows, const long *cols, const float *vals, float *out, int n) {
    const int nnz = 2 * n;
    for (int i = 0; i < n; i++) {
        float s = 0.0f;
        for (int k = 0; k < nnz; k++)
            if (rows[k] == i)
                s += fabsf(vals[k]);
        out[i] = s;
    }
}
