#include <stddef.h>

/* Scale x by a gain computed from coef[0..k); the gain is recomputed for every element.
 * perfalign: size(x)=n, size(y)=n, size(coef)=k, noalias
 */
void poly_gain(const double *x, double *y, size_t n, const double *coef, size_t k, double z) {
    for (size_t i = 0; i < n; i++) {
        double g = 0.0;
        for (size_t j = 0; j < k; j++)
            g = g * z + coef[j];
        y[i] = x[i] * g + y[i] * g;
    }
}
