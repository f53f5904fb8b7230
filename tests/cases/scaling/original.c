/* Smoothed running sums: each sum recomputed from scratch (O(n^2)), then a fixed amount of work per element. */
static double smooth(double s) {
    double x = s;
    for (int k = 0; k < 48; k++)
        x = 0.5 * x + 1.0 / (1.0 + x * x);
    return x;
}

void smoothed_sums(const double *a, double *out, int n) {
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j <= i; j++)
            s += a[j];
        out[i] = smooth(s);
    }
}
