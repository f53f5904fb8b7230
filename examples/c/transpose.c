/* B = transpose(A) for n-by-n row-major matrices; the writes stride through B.
 * perfalign: size(a)=n*n, size(b)=n*n
 */
void transpose(const double *a, double *b, int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            b[j * n + i] = a[i * n + j];
}
