#include <cstddef>

// A 7-point weighted stencil (missing neighbours count as 0).
// perfalign: noalias
void stencil7(const double *in, double *out, long n) {
    static const double wt[7] = {1.0, 2.0, 2.0, 6.0, 2.0, 2.0, 1.0};
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long d = -3; d <= 3; d++) {
            const long j = i + d;
            if (j >= 0 && j < n)
                s += wt[d + 3] * in[j];
        }
        out[i] = s;
    }
}
