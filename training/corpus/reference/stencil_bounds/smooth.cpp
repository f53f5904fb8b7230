#include <cstddef>

void smooth(const double *in, double *out, int n) {
    static const double wt[3] = {2.0, 6.0, 2.0};
    for (int i = 0; i < n; i++) {
        if (i < 1 || i + 1 >= n) {
            double s = 0.0;
            for (int d = -1; d <= 1; d++) {
                const int j = i + d;
                if (j >= 0 && j < n)
                    s += wt[d + 1] * in[j];
            }
            out[i] = s;
        }
        else
            out[i] = 0.0 + wt[0] * in[i + -1] + wt[1] * in[i] + wt[2] * in[i + 1];
    }
}
