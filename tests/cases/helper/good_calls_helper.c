void eval_all(const double *x, double *y, int n) {
    int i = 0;
    for (; i + 1 < n; i += 2) {
        y[i] = poly(x[i]);
        y[i + 1] = poly(x[i + 1]);
    }
    if (i < n)
        y[i] = poly(x[i]);
}
