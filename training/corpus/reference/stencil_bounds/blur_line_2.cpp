#include <cstddef>

void blur_line_2(const double *in, double *out, long n) {
    static const double wt[5] = {3.0, 2.0, 4.0, 2.0, 3.0};
    for (long i = 0; i < n; i++) {
        if (i < 2 || i + 2 >= n) {
            double s = 0.0;
            for (long d = -2; d <= 2; d++) {
                const long j = i + d;
                if (j >= 0 && j < n)
                    s += wt[d + 2] * in[j];
            }
            out[i] = s;
        }
        else
            out[i] = 0.0 + wt[0] * in[i + -2] + wt[1] * in[i + -1] + wt[2] * in[i] + wt[3] * in[i + 1] + wt[4] * in[i + 2];
    }
}
