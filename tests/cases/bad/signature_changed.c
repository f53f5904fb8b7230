void prefix_sums(const double *a, double *out, long n) {
    double s = 0.0;
    for (long i = 0; i < n; i++) {
        s += a[i];
        out[i] = s;
    }
}
