#include <cstddef>

// C = A B for an m x p and a p x q matrix, i-j-k order: the inner loop walks down a column.
// perfalign: size(a)=m*p, size(b)=p*q, size(c)=m*q
void gemm_plain(const float *a, const float *b, float *c, int m, int p, int q) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < q; j++) {
            float s = 0.0f;
            for (int k = 0; k < p; k++)
                s += a[i * p + k] * b[k * q + j];
            c[i * q + j] = s;
        }
}
