#include <stddef.h>
#include <math.h>

/* For a sparse n x n matrix given as 8 * n (row, column, value) triples in any order,
 * the sum of magnitudes in each row; every row scans all the triples.
 * perfalign: size(ri)=8*n, size(ci)=8*n, size(val)=8*n, range(ri)=0..n-1, range(ci)=0..n-1, size(out)=n, noalias
 */
void sparse_row_norms1(const int *ri, const int *ci, const float *val, float *out, long n) {
    const long nnz = 8 * n;
    for (long i = 0; i < n; i++) {
        float s = 0.0f;
        for (long k = 0; k < nnz; k++)
            if (ri[k] == i)
                s += fabsf(val[k]);
        out[i] = s;
    }
}
