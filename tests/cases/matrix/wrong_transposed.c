void scale_columns(double *m, const double *f, int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            m[i * n + j] *= f[i];
}
