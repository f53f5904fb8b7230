void eval_all(const double *x, double *y, int n) {
    for (int i = 0; i < n; i++) {
        double v = coeffs[DEGREE - 1];
        for (int k = DEGREE - 2; k >= 0; k--)
            v = v * x[i] + coeffs[k];
        y[i] = v;
    }
}
