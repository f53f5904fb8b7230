#include <stddef.h>

/* Combine x with a periodic weight w[i % period], computing the modulo for every element.
 * perfalign: size(x)=n, size(y)=n, size(w)=period, min(period)=1, noalias
 */
void tile_weights_f32(const float *x, float *y, int n, const float *w, int period) {
    for (int i = 0; i < n; i++)
        y[i] += x[i] * w[i % period];
}
