#include <stddef.h>
#include <math.h>

/* Evaluate the polynomial c[0..degree] at every x[i] with pow().
 * perfalign: size(c)=degree+1, size(x)=n, size(y)=n, range(x)=-1..1, range(c)=-2..2, noalias
 */
void poly_eval_3(const float *c, int degree, const float *x, float *y, int n) {
    for (int i = 0; i < n; i++) {
        float acc = 0.0f;
        for (int k = 0; k <= degree; k++)
            acc += c[k] * powf(x[i], (float)(k));
        y[i] = acc;
    }
}
