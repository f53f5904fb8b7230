#include <stddef.h>
#include <math.h>

/* Each element divided by the largest magnitude; the reduction is recomputed for every element. */
/* perfalign: noalias */
void normalize_peak_f64(const double *v, double *w, int n) {
    for (int i = 0; i < n; i++) {
        double big = 0.0;
        for (int j = 0; j < n; j++)
            if (fabs(v[j]) > big)
                big = fabs(v[j]);
        w[i] = big > 0.0 ? v[i] / big : 0.0;
    }
}
