#include <stddef.h>

/* Scale x by a gain computed from coef[0..k); the gain is recomputed for every element.
 * perfalign: size(x)=n, size(y)=n, size(coef)=k, size(u)=k, noalias
 */
void project_scale_f64(const double *x, double *y, long n, const double *coef, long k, const double *u) {
    for (long i = 0; i < n; i++) {
        double g = 0.0;
        for (long j = 0; j < k; j++)
            g += coef[j] * u[j];
        y[i] += x[i] * g;
    }
}
