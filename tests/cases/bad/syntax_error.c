void broken(const double *a, double *out, int n) {
    for (int i = 0; i < n; i++ {
        out[i] = a[i];
    }
}
