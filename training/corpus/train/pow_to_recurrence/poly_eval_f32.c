#include <stddef.h>
#include <math.h>

/* Evaluate the polynomial c[0..degree] at every x[i] with pow().
 * perfalign: size(c)=degree+1, size(x)=n, size(y)=n, range(x)=-1..1, range(c)=-2..2, noalias
 */
void poly_eval_f32(const float *c, size_t degree, const float *x, float *y, size_t n) {
    for (size_t i = 0; i < n; i++) {
        float acc = 0.0f;
        for (size_t k = 0; k <= degree; k++)
            acc += c[k] * powf(x[i], (float)(k));
        y[i] = acc;
    }
}
