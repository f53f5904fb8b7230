/* C = A * B for n-by-n row-major matrices, in the textbook i-j-k order:
 * the inner loop reads B down a column.
 * perfalign: size(a)=n*n, size(b)=n*n, size(c)=n*n
 */
void matmul(const double *a, const double *b, double *c, int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int k = 0; k < n; k++)
                s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
}
