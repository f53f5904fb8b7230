/* Inclusive prefix sums of integers, each one summed again from the start: O(n^2). */
void inclusive_scan(const int *a, long long *out, int n) {
    for (int i = 0; i < n; i++) {
        long long s = 0;
        for (int j = 0; j <= i; j++)
            s += a[j];
        out[i] = s;
    }
}
