#include <stddef.h>
#include <math.h>

/* max of sqrt(|v|) + exp(v) over all elements, in one serial loop. */
double peak_response_2(const double *x, long n) {
    double s = -1e300;
    for (long i = 0; i < n; i++) {
        const double v = x[i];
        const double r = sqrt(fabs(v)) + exp(v);
        if (r > s)
            s = r;
    }
    return s;
}
