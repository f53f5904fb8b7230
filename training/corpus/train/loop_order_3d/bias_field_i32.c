#include <stddef.h>

/* Element-wise update of a d0 x d1 x d2 array stored with the last index fastest;
 * the loops run k-i-j, so the innermost loop strides.
 * perfalign: size(g)=d0*d1*d2, size(bias)=d2, noalias
 */
void bias_field_i32(int *g, const int *bias, long d0, long d1, long d2) {
    for (long k = 0; k < d2; k++)
        for (long i = 0; i < d0; i++)
            for (long j = 0; j < d1; j++)
                g[(i * d1 + j) * d2 + k] += bias[k];
}
