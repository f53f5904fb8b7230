#include <stddef.h>
#include <math.h>

double total_response_f64_2(const double *vals, long len) {
    double s = 0.0;
#pragma omp parallel for reduction(+ : s)
    for (long i = 0; i < len; i++) {
        const double v = vals[i];
        s += exp(-v * v);
    }
    return s;
}
