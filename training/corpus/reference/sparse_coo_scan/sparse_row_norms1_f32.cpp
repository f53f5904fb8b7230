#include <cstddef>
#include <cmath>

void sparse_row_norms1_f32(const long *ri, const long *ci, const float *val, float *out, long n) {
    const long nnz = 4 * n;
    for (long i = 0; i < n; i++)
        out[i] = 0.0f;
    for (long k = 0; k < nnz; k++)
        out[ri[k]] += std::fabs(val[k]);
}
