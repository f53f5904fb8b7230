#include <cstddef>

// Scale x by a gain computed from w[0..m); the gain is recomputed for every element.
// perfalign: size(x)=n, size(y)=n, size(w)=m, noalias
void gain_stage_3(const double *x, double *y, std::size_t n, const double *w, std::size_t m) {
    for (std::size_t i = 0; i < n; i++) {
        double g = 0.0;
        for (std::size_t j = 0; j < m; j++)
            g += w[j];
        y[i] += x[i] * g;
    }
}
