/* Squared magnitudes of an n-by-n matrix of complex numbers stored as (re, im) pairs. */
void magnitudes(const double *z, double *out, int n) {
    const double *p = z;
    for (int i = 0; i < n * n; i++) {
        out[i] = p[0] * p[0] + p[1] * p[1];
        p += 2;
    }
}

/* perfalign: size(z)=2*n*n, size(out)=n*n */
void magnitudes_annotated(const double *z, double *out, int n) {
    const double *p = z;
    for (int i = 0; i < n * n; i++) {
        out[i] = p[0] * p[0] + p[1] * p[1];
        p += 2;
    }
}

double first(double **rows, int n) {
    return n > 0 ? rows[0][0] : 0.0;
}

double corner(double ***cube, int n) {
    return n > 0 ? cube[0][0][0] : 0.0;
}
