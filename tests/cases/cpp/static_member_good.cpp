double Kernels::sum_sq(const double *a, int n) {
    double s0 = 0, s1 = 0; int i = 0;
    for (; i + 1 < n; i += 2) { s0 += a[i] * a[i]; s1 += a[i + 1] * a[i + 1]; }
    if (i < n) s0 += a[i] * a[i];
    return s0 + s1;
}
