#include <cstddef>
#include <cmath>

void scale_to_unit_f64(const double *x, double *out, long n) {
    double big = 0.0;
    for (long j = 0; j < n; j++)
        if (std::fabs(x[j]) > big)
            big = std::fabs(x[j]);
    for (long i = 0; i < n; i++) {
        out[i] = big > 0.0 ? x[i] / big : 0.0;
    }
}
