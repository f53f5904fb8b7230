#include <cstddef>
#include <cmath>

double decayed_total(const double *x, int n) {
    double s = 0.0, f = 1.0;
    for (int i = 0; i < n; i++) {
        s += x[i] * f;
        f *= 0.9995;
    }
    return s;
}
