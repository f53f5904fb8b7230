#define WINDOW 32

/* Trailing moving average over WINDOW samples; each window is summed from scratch. */
void moving_average(const double *x, double *y, int n) {
    for (int i = 0; i < n; i++) {
        int lo = i - WINDOW + 1 < 0 ? 0 : i - WINDOW + 1;
        double s = 0.0;
        for (int j = lo; j <= i; j++)
            s += x[j];
        y[i] = s / (double)(i - lo + 1);
    }
}
