#include <stddef.h>

/* Sum of squares of each row of a column-major m x n array; the inner loop strides across the layout.
 * perfalign: size(a)=m*n, size(out)=m, noalias
 */
void sum_each_row(const double *a, double *out, long m, long n) {
    for (long i = 0; i < m; i++) {
        double acc = 0.0;
        for (long j = 0; j < n; j++)
            acc += a[j * m + i] * a[j * m + i];
        out[i] = acc;
    }
}
