#include <stddef.h>

/* A global outside any function. */
static const int kRepeat = 1;

/* Sum of squares, written the slow way. */
double sum_squares(const double *x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j <= i; j++) {
            if (j == i) {
                s += x[i] * x[i];
            }
        }
    }
    return s * kRepeat;
}

void scale(double *y, const double *x, double a, int n) {
    for (int i = 0; i < n; i++) {
        y[i] = a * x[i];
    }
}
