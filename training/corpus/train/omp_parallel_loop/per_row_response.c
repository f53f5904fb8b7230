#include <stddef.h>
#include <math.h>

/* For each row of a rows x cols array, the sum of exp(-v*v); every iteration is independent.
 * perfalign: size(a)=rows*cols, size(out)=rows, noalias
 */
void per_row_response(const double *a, double *out, int rows, int cols) {
    for (int i = 0; i < rows; i++) {
        double s = 0.0;
        for (int j = 0; j < cols; j++) {
            const double v = a[i * cols + j];
            s += exp(-v * v);
        }
        out[i] = s;
    }
}
