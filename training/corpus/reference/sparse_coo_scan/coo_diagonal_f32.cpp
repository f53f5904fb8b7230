#include <cstddef>

void coo_diagonal_f32(const long *ri, const long *ci, const float *val, float *d, int n) {
    const int nnz = 3 * n;
    for (int i = 0; i < n; i++)
        d[i] = 0.0f;
    for (int k = 0; k < nnz; k++)
        if (ri[k] == ci[k])
            d[ri[k]] += val[k];
}
