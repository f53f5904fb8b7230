#include <stddef.h>

/* Element-wise update of a d0 x d1 x d2 array stored with the last index fastest;
 * the loops run k-i-j, so the innermost loop strides.
 * perfalign: size(u)=d0*d1*d2, size(v)=d0*d1*d2, noalias
 */
void step_grid_f32(float *u, const float *v, float dt, size_t d0, size_t d1, size_t d2) {
    for (size_t k = 0; k < d2; k++)
        for (size_t i = 0; i < d0; i++)
            for (size_t j = 0; j < d1; j++)
                u[(i * d1 + j) * d2 + k] += dt * v[(i * d1 + j) * d2 + k];
}
