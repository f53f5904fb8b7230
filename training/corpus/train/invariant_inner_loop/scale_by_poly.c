#include <stddef.h>

/* Scale x by a gain computed from coef[0..k); the gain is recomputed for every element.
 * perfalign: size(x)=n, size(y)=n, size(coef)=k, noalias
 */
void scale_by_poly(const float *x, float *y, int n, const float *coef, int k, float z) {
    for (int i = 0; i < n; i++) {
        float g = 0.0f;
        for (int j = 0; j < k; j++)
            g = g * z + coef[j];
        y[i] = x[i] * g + y[i] * g;
    }
}
