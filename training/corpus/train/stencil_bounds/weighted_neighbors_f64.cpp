#include <cstddef>

// A 3-point weighted stencil (missing neighbours count as 0).
// perfalign: noalias
void weighted_neighbors_f64(const double *in, double *out, long n) {
    static const double wt[3] = {3.0, 4.0, 3.0};
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long d = -1; d <= 1; d++) {
            const long j = i + d;
            if (j >= 0 && j < n)
                s += wt[d + 1] * in[j];
        }
        out[i] = s;
    }
}
