#include <stddef.h>
#include <math.h>

double peak_response(const float *vals, long len) {
    double s = -1e300;
#pragma omp parallel for reduction(max : s)
    for (long i = 0; i < len; i++) {
        const double v = vals[i];
        const double r = sqrt(fabs(v)) + exp(v);
        if (r > s)
            s = r;
    }
    return s;
}
