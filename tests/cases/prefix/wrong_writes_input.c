void prefix_sums(const double *a, double *out, int n) {
    double *w = (double *)a;
    for (int i = 1; i < n; i++)
        w[i] += w[i - 1];
    for (int i = 0; i < n; i++)
        out[i] = a[i];
}
