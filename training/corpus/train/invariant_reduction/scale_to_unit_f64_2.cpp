#include <cstddef>
#include <cmath>

// Each element divided by the largest magnitude; the reduction is recomputed for every element.
// perfalign: noalias
void scale_to_unit_f64_2(const double *x, double *out, int n) {
    for (int i = 0; i < n; i++) {
        double big = 0.0;
        for (int j = 0; j < n; j++)
            if (std::fabs(x[j]) > big)
                big = std::fabs(x[j]);
        out[i] = big > 0.0 ? x[i] / big : 0.0;
    }
}
