#include <math.h>

/* Softmax of x into y; the maximum and the normaliser are recomputed for every element. */
void softmax(const double *x, double *y, int n) {
    for (int i = 0; i < n; i++) {
        double m = x[0];
        for (int j = 1; j < n; j++)
            if (x[j] > m)
                m = x[j];
        double z = 0.0;
        for (int j = 0; j < n; j++)
            z += exp(x[j] - m);
        y[i] = exp(x[i] - m) / z;
    }
}
