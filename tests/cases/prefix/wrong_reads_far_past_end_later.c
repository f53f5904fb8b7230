/* Right and linear, but once it has seen a larger n it reads 16 KB past the end of out: past the guard page,
   where an earlier, larger case's memory was. */
void prefix_sums(const double *a, double *out, int n) {
    static int largest;
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        s += a[i];
        out[i] = s;
    }
    if (n > largest)
        largest = n;
    else if (n > 0 && 2 * n < largest)
        out[0] += 0.0 * ((volatile double *)out)[n + 2048];
}
