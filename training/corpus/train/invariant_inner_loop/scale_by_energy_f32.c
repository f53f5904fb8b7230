#include <stddef.h>

/* Scale x by a gain computed from gw[0..ng); the gain is recomputed for every element.
 * perfalign: size(x)=n, size(y)=n, size(gw)=ng, noalias
 */
void scale_by_energy_f32(const float *x, float *y, int n, const float *gw, int ng) {
    for (int i = 0; i < n; i++) {
        float g = 0.0f;
        for (int j = 0; j < ng; j++)
            g += gw[j] * gw[j];
        y[i] = x[i] * g + y[i] * g;
    }
}
