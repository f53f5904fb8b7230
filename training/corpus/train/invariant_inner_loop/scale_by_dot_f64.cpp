#include <cstddef>

// Scale x by a gain computed from w[0..m); the gain is recomputed for every element.
// perfalign: size(x)=n, size(y)=n, size(w)=m, size(u)=m, noalias
void scale_by_dot_f64(const double *x, double *y, long n, const double *w, long m, const double *u) {
    for (long i = 0; i < n; i++) {
        double g = 0.0;
        for (long j = 0; j < m; j++)
            g += w[j] * u[j];
        y[i] = x[i] * g + y[i] * g;
    }
}
