#include <stddef.h>

/* Combine x with a periodic weight w[i % period], computing the modulo for every element.
 * perfalign: size(x)=n, size(y)=n, size(w)=period, min(period)=1, noalias
 */
void cyclic_scale(const double *x, double *y, long n, const double *w, long period) {
    for (long i = 0; i < n; i++)
        y[i] = x[i] * w[i % period];
}
