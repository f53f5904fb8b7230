// y = A x for an n-by-n row-major matrix, walked column by column.
// perfalign: size(a)=n*n, size(x)=n, size(y)=n
void matvec(const double *a, const double *x, double *y, int n) {
    for (int i = 0; i < n; i++)
        y[i] = 0.0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            y[i] += a[i * n + j] * x[j];
}
