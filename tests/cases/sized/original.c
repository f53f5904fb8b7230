/* Sum of each row of a rows-by-cols row-major matrix, read through a moving pointer. */
void row_sums(const double *m, double *sums, int rows, int cols) {
    const double *p = m;
    for (int r = 0; r < rows; r++) {
        double s = 0.0;
        for (int c = 0; c < cols; c++)
            s += *p++;
        sums[r] = s;
    }
}

/* Pairs (a[2i], a[2i+1]) plus the last element. */
double odd_layout(const double *a, int n) {
    double s = a[2 * n];
    for (int i = 0; i < n; i++) {
        const double *p = a + 2 * i;
        s += p[0] * p[1];
    }
    return s;
}

/* perfalign: size(a)=2*n+1 */
double odd_layout_annotated(const double *a, int n) {
    double s = a[2 * n];
    for (int i = 0; i < n; i++) {
        const double *p = a + 2 * i;
        s += p[0] * p[1];
    }
    return s;
}
