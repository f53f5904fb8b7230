#include <stddef.h>

/* For a sparse n x n matrix given as nnz (row, column, value) triples in any order,
 * y = A^T x; every row scans all the triples.
 * perfalign: size(ri)=nnz, size(ci)=nnz, size(val)=nnz, range(ri)=0..n-1, range(ci)=0..n-1, size(x)=n, size(y)=n
 */
void sparse_matvec_t_f32(const long *ri, const long *ci, const float *val, long nnz, const float *x, float *y, long n) {
    for (long i = 0; i < n; i++) {
        float s = 0.0f;
        for (long k = 0; k < nnz; k++)
            if (ci[k] == i)
                s += val[k] * x[ri[k]];
        y[i] = s;
    }
}
