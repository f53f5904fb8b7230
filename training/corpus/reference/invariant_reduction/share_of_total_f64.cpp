#include <cstddef>

void share_of_total_f64(const double *v, double *w, int n) {
    double total = 0.0;
    for (int j = 0; j < n; j++)
        total += v[j];
    for (int i = 0; i < n; i++) {
        w[i] = static_cast<double>(v[i] / total);
    }
}
