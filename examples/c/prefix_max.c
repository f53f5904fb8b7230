/* out[i] = max(a[0..i]), recomputed from the start for every i: O(n^2). */
void prefix_max(const double *a, double *out, int n) {
    for (int i = 0; i < n; i++) {
        double m = a[0];
        for (int j = 1; j <= i; j++)
            if (a[j] > m)
                m = a[j];
        out[i] = m;
    }
}
