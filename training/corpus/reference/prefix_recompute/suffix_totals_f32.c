#include <stddef.h>

void suffix_totals_f32(const float *data, double *result, int n) {
    double s = 0.0;
    for (int i = n; i-- > 0;) {
        s += data[i];
        result[i] = s;
    }
}
