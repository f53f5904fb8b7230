/* Largest sum of a non-empty contiguous run, by trying every start: O(n^2).
 * Kadane's algorithm finds the same value in one pass.
 * perfalign: min(n)=1
 */
long long max_subarray(const int *a, int n) {
    long long best = a[0];
    for (int i = 0; i < n; i++) {
        long long s = 0;
        for (int j = i; j < n; j++) {
            s += a[j];
            if (s > best)
                best = s;
        }
    }
    return best;
}
