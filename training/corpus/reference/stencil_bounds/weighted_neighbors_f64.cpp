#include <cstddef>

void weighted_neighbors_f64(const double *in, double *out, long n) {
    static const double wt[3] = {3.0, 4.0, 3.0};
    for (long i = 0; i < n; i++) {
        if (i < 1 || i + 1 >= n) {
            double s = 0.0;
            for (long d = -1; d <= 1; d++) {
                const long j = i + d;
                if (j >= 0 && j < n)
                    s += wt[d + 1] * in[j];
            }
            out[i] = s;
        }
        else
            out[i] = 0.0 + wt[0] * in[i + -1] + wt[1] * in[i] + wt[2] * in[i + 1];
    }
}
