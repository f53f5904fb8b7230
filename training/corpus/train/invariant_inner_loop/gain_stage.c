#include <stddef.h>

/* Scale x by a gain computed from w[0..m); the gain is recomputed for every element.
 * perfalign: size(x)=n, size(y)=n, size(w)=m, noalias
 */
void gain_stage(const float *x, float *y, size_t n, const float *w, size_t m) {
    for (size_t i = 0; i < n; i++) {
        float g = 0.0f;
        for (size_t j = 0; j < m; j++)
            g += w[j];
        y[i] += x[i] * g;
    }
}
