#include <stddef.h>

/* a[i][j] = a[i][j] * cb[j] + rb[i] over a flattened index split with / and %.
 * perfalign: size(a)=rows*cols, size(rb)=rows, size(cb)=cols
 */
void add_row_col_bias_f64(double *a, const double *rb, const double *cb, long rows, long cols) {
    for (long t = 0; t < rows * cols; t++) {
        const long i = t / cols;
        const long j = t % cols;
        a[t] = a[t] * cb[j] + rb[i];
    }
}
