#include <cstddef>

// Element-wise update of a d0 x d1 x d2 array stored with the last index fastest;
// the loops run j-k-i, so the innermost loop strides.
// perfalign: size(g)=d0*d1*d2, size(bias)=d2, noalias
void shift_grid(int *g, const int *bias, int d0, int d1, int d2) {
    for (int j = 0; j < d1; j++)
        for (int k = 0; k < d2; k++)
            for (int i = 0; i < d0; i++)
                g[(i * d1 + j) * d2 + k] += bias[k];
}
