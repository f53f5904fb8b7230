#include <stddef.h>

void step_grid_f32(float *u, const float *v, float dt, size_t d0, size_t d1, size_t d2) {
    for (size_t i = 0; i < d0; i++)
        for (size_t j = 0; j < d1; j++)
            for (size_t k = 0; k < d2; k++)
                u[(i * d1 + j) * d2 + k] += dt * v[(i * d1 + j) * d2 + k];
}
