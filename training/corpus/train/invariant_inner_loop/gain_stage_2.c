#include <stddef.h>

/* Scale x by a gain computed from taps[0..nt); the gain is recomputed for every element.
 * perfalign: size(x)=n, size(y)=n, size(taps)=nt, noalias
 */
void gain_stage_2(const double *x, double *y, size_t n, const double *taps, size_t nt) {
    for (size_t i = 0; i < n; i++) {
        double g = 0.0;
        for (size_t j = 0; j < nt; j++)
            g += taps[j];
        y[i] = x[i] * g + y[i] * g;
    }
}
