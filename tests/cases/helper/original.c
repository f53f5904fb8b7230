#include <math.h>

#define DEGREE 6

static const double coeffs[DEGREE + 1] = {1.0, -0.5, 0.25, -0.125, 0.0625, -0.03125, 0.015625};

/* Evaluate the polynomial at x with explicit powers. */
double poly(double x) {
    double y = 0.0;
    for (int k = 0; k <= DEGREE; k++)
        y += coeffs[k] * pow(x, k);
    return y;
}

void eval_all(const double *x, double *y, int n) {
    for (int i = 0; i < n; i++)
        y[i] = poly(x[i]);
}

int main(void) { return 0; }
