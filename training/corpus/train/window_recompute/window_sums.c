#include <stddef.h>

#define WIN 48

/* out[i] = sum over the window x[i..i+48) (clipped at the ends), re-summed for every i.
 * perfalign: range(in)=-1000..1000, noalias
 */
void window_sums(const double *in, double *out, long n) {
    for (long i = 0; i < n; i++) {
        double s = 0.0;
        for (long j = i; j < i + WIN && j < n; j++)
            s += in[j];
        out[i] = s;
    }
}
