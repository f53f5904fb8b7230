/* y = a*x + y in single precision, a loop every core could share. */
void saxpy(float a, const float *x, float *y, int n) {
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
