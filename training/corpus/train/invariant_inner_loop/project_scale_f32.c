#include <stddef.h>

/* Scale x by a gain computed from w[0..m); the gain is recomputed for every element.
 * perfalign: size(x)=n, size(y)=n, size(w)=m, size(u)=m, noalias
 */
void project_scale_f32(const float *x, float *y, int n, const float *w, int m, const float *u) {
    for (int i = 0; i < n; i++) {
        float g = 0.0f;
        for (int j = 0; j < m; j++)
            g += w[j] * u[j];
        y[i] = x[i] * g;
    }
}
