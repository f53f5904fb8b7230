#include <stddef.h>

#define WIN 48

void window_sums(const double *in, double *out, long n) {
    double s = 0.0;
    for (long i = n; i-- > 0;) {
        s += in[i];
        if (i + WIN < n)
            s -= in[i + WIN];
        out[i] = s;
    }
}
