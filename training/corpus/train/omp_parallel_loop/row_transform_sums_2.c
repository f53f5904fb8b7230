#include <stddef.h>
#include <math.h>

/* For each row of a rows x cols array, the sum of exp(-v*v); every iteration is independent.
 * perfalign: size(a)=rows*cols, size(out)=rows, noalias
 */
void row_transform_sums_2(const float *a, double *out, long rows, long cols) {
    for (long i = 0; i < rows; i++) {
        double s = 0.0;
        for (long j = 0; j < cols; j++) {
            const double v = a[i * cols + j];
            s += exp(-v * v);
        }
        out[i] = s;
    }
}
