static double horner(double x) {
    double y = coeffs[DEGREE];
    for (int k = DEGREE - 1; k >= 0; k--)
        y = y * x + coeffs[k];
    return y;
}

void eval_all(const double *x, double *y, int n) {
    for (int i = 0; i < n; i++)
        y[i] = horner(x[i]);
}
