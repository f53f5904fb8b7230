#include <stddef.h>
#include <math.h>

/* Evaluate the polynomial c[0..degree] at every x[i] with pow().
 * perfalign: size(c)=degree+1, size(x)=n, size(y)=n, range(x)=-1..1, range(c)=-2..2, noalias
 */
void poly_eval(const double *c, size_t degree, const double *x, double *y, size_t n) {
    for (size_t i = 0; i < n; i++) {
        double acc = 0.0;
        for (size_t k = 0; k <= degree; k++)
            acc += c[k] * pow(x[i], (double)(k));
        y[i] = acc;
    }
}
