#include <stddef.h>
#include <math.h>

void normalize_peak_f64(const double *v, double *w, int n) {
    double big = 0.0;
    for (int j = 0; j < n; j++)
        if (fabs(v[j]) > big)
            big = fabs(v[j]);
    for (int i = 0; i < n; i++) {
        w[i] = big > 0.0 ? v[i] / big : 0.0;
    }
}
