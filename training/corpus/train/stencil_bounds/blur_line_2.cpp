#include <cstddef>

// A 5-point weighted stencil (missing neighbours count as 0).
// perfalign: noalias
void blur_line_2(const double *in, double *out, long n) {
    static const double wt[5] = {3.0, 2.0, 4.0, 2.0, 3.0};
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long d = -2; d <= 2; d++) {
            const long j = i + d;
            if (j >= 0 && j < n)
                s += wt[d + 2] * in[j];
        }
        out[i] = s;
    }
}
