#include <stddef.h>

/* Combine x with a periodic weight w[i % period], computing the modulo for every element.
 * perfalign: size(x)=n, size(y)=n, size(w)=period, min(period)=1, noalias
 */
void tile_weights_i32(const int *x, int *y, size_t n, const int *w, size_t period) {
    for (size_t i = 0; i < n; i++)
        y[i] = x[i] - w[i % period];
}
