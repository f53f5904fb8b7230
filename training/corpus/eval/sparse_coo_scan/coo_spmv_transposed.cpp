#include <cstddef>

// For a sparse n x n matrix given as 8 * n (row, column, value) triples in any order,
// y = A^T x; every row scans all the triples.
// perfalign: size(ri)=8*n, size(ci)=8*n, size(val)=8*n, range(ri)=0..n-1, range(ci)=0..n-1, size(x)=n, size(y)=n, noalias
void coo_spmv_transposed(const int *ri, const int *ci, const float *val, const float *x, float *y, int n) {
    const int nnz = 8 * n;
    for (int i = 0; i < n; i++) {
        float s = 0.0f;
        for (int k = 0; k < nnz; k++)
            if (ci[k] == i)
                s += val[k] * x[ri[k]];
        y[i] = s;
    }
}
