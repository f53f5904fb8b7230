/* Scale every element of an n-by-n row-major matrix, walking it column by column. */
void scale_columns(double *m, const double *f, int n) {
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            m[i * n + j] *= f[j];
}
