#include <cstddef>
#include <cmath>

// For a sparse n x n matrix given as 4 * n (row, column, value) triples in any order,
// the sum of magnitudes in each row; every row scans all the triples.
// perfalign: size(ri)=4*n, size(ci)=4*n, size(val)=4*n, range(ri)=0..n-1, range(ci)=0..n-1, size(out)=n, noalias
void sparse_row_norms1_f32(const long *ri, const long *ci, const float *val, float *out, long n) {
    const long nnz = 4 * n;
    for (long i = 0; i < n; i++) {
        float s = 0.0f;
        for (long k = 0; k < nnz; k++)
            if (ri[k] == i)
                s += std::fabs(val[k]);
        out[i] = s;
    }
}
