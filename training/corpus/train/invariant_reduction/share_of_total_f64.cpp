#include <cstddef>

// Each element divided by the sum of all elements; the reduction is recomputed for every element.
// perfalign: noalias
void share_of_total_f64(const double *v, double *w, int n) {
    for (int i = 0; i < n; i++) {
        double total = 0.0;
        for (int j = 0; j < n; j++)
            total += v[j];
        w[i] = static_cast<double>(v[i] / total);
    }
}
