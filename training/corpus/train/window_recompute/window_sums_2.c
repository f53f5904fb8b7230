#include <stddef.h>

#define WIN 32

/* out[i] = sum over the window x[i..i+32) (clipped at the ends), re-summed for every i.
 * perfalign: range(signal)=-1000..1000, noalias
 */
void window_sums_2(const double *signal, double *smooth, int n) {
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = i; j < i + WIN && j < n; j++)
            s += signal[j];
        smooth[i] = s;
    }
}
