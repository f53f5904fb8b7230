/* How many samples fall inside [lo, hi]: a reduction written as a serial loop. */
int count_in_range(const double *x, int n, double lo, double hi) {
    int count = 0;
    for (int i = 0; i < n; i++)
        if (x[i] >= lo && x[i] <= hi)
            count++;
    return count;
}
