#include <stddef.h>

/* Scale x by a gain computed from taps[0..nt); the gain is recomputed for every element.
 * perfalign: size(x)=n, size(y)=n, size(taps)=nt, size(u)=nt, noalias
 */
void scale_by_dot(const double *x, double *y, size_t n, const double *taps, size_t nt, const double *u) {
    for (size_t i = 0; i < n; i++) {
        double g = 0.0;
        for (size_t j = 0; j < nt; j++)
            g += taps[j] * u[j];
        y[i] = x[i] * g + y[i] * g;
    }
}
