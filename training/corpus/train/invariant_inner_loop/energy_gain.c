#include <stddef.h>

/* Scale x by a gain computed from gw[0..ng); the gain is recomputed for every element.
 * perfalign: size(x)=n, size(y)=n, size(gw)=ng
 */
void energy_gain(const double *x, double *y, size_t n, const double *gw, size_t ng) {
    for (size_t i = 0; i < n; i++) {
        double g = 0.0;
        for (size_t j = 0; j < ng; j++)
            g += gw[j] * gw[j];
        y[i] += x[i] * g;
    }
}
