/* Three-point box blur, repeated for a fixed number of passes; ends are kept. */
#define PASSES 8

void blur_1d(double *x, double *tmp, int n) {
    for (int p = 0; p < PASSES; p++) {
        for (int i = 0; i < n; i++) {
            if (i == 0 || i == n - 1)
                tmp[i] = x[i];
            else
                tmp[i] = (x[i - 1] + x[i] + x[i + 1]) / 3.0;
        }
        for (int i = 0; i < n; i++)
            x[i] = tmp[i];
    }
}
