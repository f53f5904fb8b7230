#include <cstddef>

// A 3-point weighted stencil (missing neighbours count as 0).
// perfalign: noalias
void smooth(const double *in, double *out, int n) {
    static const double wt[3] = {2.0, 6.0, 2.0};
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int d = -1; d <= 1; d++) {
            const int j = i + d;
            if (j >= 0 && j < n)
                s += wt[d + 1] * in[j];
        }
        out[i] = s;
    }
}
