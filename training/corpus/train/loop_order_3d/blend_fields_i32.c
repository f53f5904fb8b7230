#include <stddef.h>

/* Element-wise update of a d0 x d1 x d2 array stored with the last index fastest;
 * the loops run i-k-j, so the innermost loop strides.
 * perfalign: size(a)=d0*d1*d2, size(b)=d0*d1*d2, size(out)=d0*d1*d2, noalias
 */
void blend_fields_i32(const int *a, const int *b, int *out, long d0, long d1, long d2) {
    for (long i = 0; i < d0; i++)
        for (long k = 0; k < d2; k++)
            for (long j = 0; j < d1; j++)
                out[(i * d1 + j) * d2 + k] = a[(i * d1 + j) * d2 + k] - 3 * b[(i * d1 + j) * d2 + k];
}
