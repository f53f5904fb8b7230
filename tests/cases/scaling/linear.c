void smoothed_sums(const double *a, double *out, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += a[i];
        out[i] = smooth(s);
    }
}
