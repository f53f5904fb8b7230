#include <cstddef>

// For a sparse n x n matrix given as 3 * n (row, column, value) triples in any order,
// the diagonal (duplicates summed); every row scans all the triples.
// perfalign: size(ri)=3*n, size(ci)=3*n, size(val)=3*n, range(ri)=0..n-1, range(ci)=0..n-1, size(d)=n, noalias
void coo_diagonal_f32(const long *ri, const long *ci, const float *val, float *d, int n) {
    const int nnz = 3 * n;
    for (int i = 0; i < n; i++) {
        float s = 0.0f;
        for (int k = 0; k < nnz; k++)
            if (ri[k] == i && ci[k] == i)
                s += val[k];
        d[i] = s;
    }
}
