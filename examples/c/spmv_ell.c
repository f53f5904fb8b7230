#define ELL_WIDTH 8

/* y = A x for a sparse matrix in ELLPACK form (ELL_WIDTH entries per row, stored
 * column-major by slot: entry k of row i is at k*n + i). The loops go slot by slot,
 * re-reading and re-writing all of y ELL_WIDTH times.
 * perfalign: size(vals)=8*n, size(cols)=8*n, range(cols)=0..n-1, size(x)=n, size(y)=n
 */
void spmv_ell(const double *vals, const int *cols, const double *x, double *y, int n) {
    for (int i = 0; i < n; i++)
        y[i] = 0.0;
    for (int k = 0; k < ELL_WIDTH; k++)
        for (int i = 0; i < n; i++)
            y[i] += vals[k * n + i] * x[cols[k * n + i]];
}
