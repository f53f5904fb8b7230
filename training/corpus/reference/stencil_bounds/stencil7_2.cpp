#include <cstddef>

void stencil7_2(const double *in, double *out, int n) {
    static const double wt[7] = {2.0, 2.0, 2.0, 4.0, 2.0, 2.0, 2.0};
    for (int i = 0; i < n; i++) {
        if (i < 3 || i + 3 >= n) {
            double s = 0.0;
            for (int d = -3; d <= 3; d++) {
                const int j = i + d;
                if (j >= 0 && j < n)
                    s += wt[d + 3] * in[j];
            }
            out[i] = s;
        }
        else
            out[i] = 0.0 + wt[0] * in[i + -3] + wt[1] * in[i + -2] + wt[2] * in[i + -1] + wt[3] * in[i] + wt[4] * in[i + 1] + wt[5] * in[i + 2] + wt[6] * in[i + 3];
    }
}
