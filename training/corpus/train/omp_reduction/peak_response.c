#include <stddef.h>
#include <math.h>

/* max of sqrt(|v|) + exp(v) over all elements, in one serial loop. */
double peak_response(const float *vals, long len) {
    double s = -1e300;
    for (long i = 0; i < len; i++) {
        const double v = vals[i];
        const double r = sqrt(fabs(v)) + exp(v);
        if (r > s)
            s = r;
    }
    return s;
}
