#include <math.h>

/* Euclidean norm with pow() for squaring and a serial accumulation. */
double vector_norm(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += pow(x[i], 2.0);
    return sqrt(s);
}
