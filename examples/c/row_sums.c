/* Sum each row of an n-by-n row-major matrix.
 * The loops walk the matrix column by column, so every access jumps n doubles.
 * perfalign: size(a)=n*n, size(sums)=n
 */
void row_sums(const double *a, double *sums, int n) {
    for (int i = 0; i < n; i++)
        sums[i] = 0.0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            sums[i] += a[i * n + j];
}
