#include <cstddef>

// A 7-point weighted stencil (missing neighbours count as 0).
// perfalign: noalias
void stencil7_2(const double *in, double *out, int n) {
    static const double wt[7] = {2.0, 2.0, 2.0, 4.0, 2.0, 2.0, 2.0};
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int d = -3; d <= 3; d++) {
            const int j = i + d;
            if (j >= 0 && j < n)
                s += wt[d + 3] * in[j];
        }
        out[i] = s;
    }
}
